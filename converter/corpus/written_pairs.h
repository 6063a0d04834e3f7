// The everyday source: English->Spanish pairs the project's engineers wrote themselves
// (converter/corpus/sources/everyday/*.tsv, docs/corpus.md says how), since Debian ships no
// conversational parallel text. Each pair is a document of its own (its sentences were written
// one by one), so the held-out sets take single pairs. Pure but for reading the files.
//
// Rules, before the software-text rules (software_text.h) apply to what is left:
//  1. format: every line is `English<TAB>Spanish` with both sides non-empty; any other line is
//     an error naming the file and line, never skipped.
//  2. test-like: a pair whose English shares at least kTestLikeJaccard of its word set with a
//     sentence of the everyday test set (tests/data/everyday) is dropped, so that no paraphrase
//     of a test sentence is trained on (exact and near-duplicate copies are also caught later by
//     the shared duplicate rule, which sees the test English first).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus/software_text.h"

namespace pmt::corpus {

inline constexpr double kTestLikeJaccard = 0.5;

// The pairs of every *.tsv file directly in `dir`, files in name order, lines in file order;
// each pair becomes a document named by its English. False with a message on a malformed line,
// an unreadable folder or a folder without a .tsv file.
bool read_written_pairs(const std::filesystem::path& dir, std::vector<RawDocument>* documents, std::string* error);

// Reads PREFIX.en and PREFIX.es, aligned by line. False with a message when a file is missing
// or the line counts differ.
bool read_parallel_files(const std::string& prefix, std::vector<SentencePair>* pairs, std::string* error);

// Jaccard similarity of the lower-cased word sets of two English sentences (0 when both are empty).
double word_set_jaccard(const std::string& a, const std::string& b);

// Rule 2: removes from `documents` every pair whose English is test-like; returns how many.
int64_t drop_test_like(const std::vector<SentencePair>& test, std::vector<RawDocument>* documents);

}  // namespace pmt::corpus
