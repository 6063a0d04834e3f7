// The general-domain corpus from software text Debian ships translated: cleaning each pair
// (message_cleaning.h), removing duplicates across packages, and holding out whole packages.
// Pure: the CLI (corpus_cli.cc) reads the packages and writes the files.
//
// Rules, in the order they apply to each pair (the report counts each):
//  1. markup: tags and entities (strip_markup); accelerators (strip_accelerators); whitespace
//     collapsed. A side left empty drops the pair ("empty").
//  2. length: fewer than 3 English words, or more than 120, drops the pair ("length").
//  3. untranslated: the Spanish near-duplicate key equals the English one ("untranslated").
//  4. placeholders: different placeholder multisets on the two sides ("placeholders").
//  5. language: the Spanish side has more English than Spanish function words, or the English
//     side more Spanish than English ones ("language").
//  6. length ratio: Spanish/English code points outside [median / 2, 2 * median] of the source's
//     pairs surviving 1-5; x3 instead of x2 when both sides are under 20 code points ("ratio").
//  7. duplicates, across every package and split: the same English text ("duplicate") or the
//     same near-duplicate key ("near duplicate"). Train packages come first, then valid, then test,
//     so a held-out pair whose English is seen in train is dropped as a duplicate (no leakage).
//     English kept by a source built before (any split) counts as seen, so no source's held-out
//     English is trained on through another source.
//  8. split by document (a package, or a help page): FNV-1a(name) % 50 == 7 -> test, == 23 ->
//     valid, else train; a source with few documents holds out a few buckets from 7 and 23 on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "corpus/corpus_split.h"
#include "corpus/prepare.h"

namespace pmt::corpus {

// The raw pairs of one document (a package), in the order its files give them.
struct RawDocument {
  std::string name;
  std::vector<SentencePair> pairs;
};

struct CleanCounts {
  int64_t raw = 0, empty = 0, length = 0, untranslated = 0, placeholders = 0, language = 0,
          ratio = 0, duplicate = 0, near_duplicate = 0;
  int64_t kept[kNumSplits] = {};
};

struct SoftwareCorpus {
  std::vector<SentencePair> splits[kNumSplits];
  CleanCounts counts;
  int documents[kNumSplits] = {};
  double median_ratio = 0.0;
};

// The English every source built so far kept: exact text and near-duplicate keys.
struct SeenEnglish {
  std::unordered_set<std::string> text, key;
};

// Which split a document belongs to; held_out_buckets (1 to 16) of the 50 go to each of test and
// valid.
Split split_of_document(const std::string& name, int held_out_buckets = 1);

// FNV-1a of the bytes of s: a hash stable across platforms and library versions, for choices
// that must not change between runs (held-out documents, the pairs copied in capitals).
uint32_t stable_hash(std::string_view s);

// Rules 1-5 on one pair: the cleaned pair, or false with the counter of the rule that dropped it
// incremented.
bool clean_pair(const SentencePair& raw, SentencePair* out, CleanCounts* counts);

// Every rule over every document of one source; the English it keeps is added to *seen.
SoftwareCorpus build_software_corpus(const std::vector<RawDocument>& documents, int held_out_buckets,
                                     SeenEnglish* seen);

}  // namespace pmt::corpus
