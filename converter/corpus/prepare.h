// The corpus preparation pipeline: verse-aligned English->Spanish pairs from the WEB, KJV and
// RV1909 SWORD modules, cleaned, filtered and split by chapter. Pure: it reads nothing and writes
// nothing (sword_module.h reads the modules, write_corpus writes the result).
//
// Rules, in the order they apply (README "Corpus and vocabulary" lists the measured effect):
//  1. Text: every verse of the three modules goes through osis_to_text (osis_text.h). In RV,
//     the subscription of a verse the KJV marks as carrying one is cut (cut_subscription) and the
//     capitals opening verse 1 of each chapter are re-cased (recase_chapter_opening, with word
//     case counts taken from the whole RV text).
//  2. Verses: the KJV/RV1909 verse list (31,102 verses, 1,189 chapters of the 66 books), in
//     canonical order; WEB verses are looked up by the same key (WEB's deuterocanon and its two
//     extra empty verses are never used).
//  3. Empty: a pair with an empty side is dropped (verses a module leaves empty or moves).
//  4. Versification: RV is aligned with the KJV (which shares its numbering) chapter by chapter
//     with a length-based dynamic programme (verse_alignment.h); a verse not aligned one-to-one
//     with the KJV verse of its own number is dropped from every pairing.
//  5. Length ratio: a pair whose Spanish/English length ratio in code points lies outside
//     [median / 2, 2 * median] is dropped; the median is over that pairing's pairs surviving 3-4.
//  6. Split: by chapter (corpus_split.h): % 32 == 7 test, == 23 valid, else train.
//  7. Leakage: a valid or test pair whose English occurs verbatim in the English of the train
//     chapters (WEB and KJV both, so the held-out sets do not depend on whether KJV pairs are
//     added) is dropped.
//  8. Output: valid and test are always WEB-RV; train is WEB-RV, followed by KJV-RV when asked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus/corpus_split.h"
#include "corpus/sword_module.h"

namespace pmt::corpus {

// The IMP entries of the three modules (parse_imp of each module's dump).
struct BibleSources {
  std::vector<ImpEntry> web;  // engWEB2015eb
  std::vector<ImpEntry> kjv;  // engKJV2006eb
  std::vector<ImpEntry> rv;   // spaRV1909eb
};

struct SentencePair {
  std::string en, es;
};

// Pairs removed by each rule from one pairing, counted in rule order (a pair counts once).
struct DropCounts {
  int64_t empty = 0;
  int64_t versification = 0;
  int64_t length_ratio = 0;
  int64_t leaked[kNumSplits] = {};  // indexed by Split; only valid/test of WEB-RV are checked
};

struct PrepareOptions {
  bool add_kjv_to_train = false;
};

struct PreparedCorpus {
  std::vector<SentencePair> splits[kNumSplits];  // indexed by Split, canonical verse order
  int chapters = 0;
  int verses = 0;
  int subscriptions_cut = 0;   // RV verses cut by rule 1
  int openings_recased = 0;    // RV chapter openings re-cased by rule 1
  int misaligned_verses = 0;   // verses rule 4 flags (before any other rule)
  DropCounts web_drops, kjv_drops;
  double web_median_ratio = 0.0, kjv_median_ratio = 0.0;
  int64_t kjv_train_pairs = 0;  // KJV-RV train pairs (in splits[train] only when asked)
};

// The dumps of the three modules (mod2imp, run in parallel) and their entries, which point into
// the dumps: fill in place, never copy.
struct BibleModules {
  std::string dumps[3];
  BibleSources sources;
};
bool read_bible_modules(BibleModules* out, std::string* error);

// Fails (false, message) only when the sources hold no verse at all.
bool prepare_corpus(const BibleSources& sources, const PrepareOptions& options,
                    PreparedCorpus* out, std::string* error);

// Words (Python's str.split() fields) on the English or the Spanish side of every pair.
int64_t count_side_words(const std::vector<SentencePair>& pairs, bool english);

// Writes <dir>/<stem>.en and <dir>/<stem>.es, one sentence per line (dir must exist).
bool write_pairs(const std::vector<SentencePair>& pairs, const std::filesystem::path& dir,
                 const std::string& stem, std::string* error);

// Writes <dir>/{train,valid,test}.{en,es}, one sentence per line, creating dir.
bool write_corpus(const PreparedCorpus& corpus, const std::filesystem::path& dir, std::string* error);

}  // namespace pmt::corpus
