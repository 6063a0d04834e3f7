// Shared fixtures of the training-loop tests: a scratch directory, synthetic sentence pairs
// (the copy-or-reverse task) and a tiny SentencePiece model trained on the spot.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "pocketmt/config.h"
#include "train/parallel_data.h"

namespace pmt::test {

// A fresh directory under the system temp dir, removed with its contents on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::string& path, const std::string& text);

// The "tiny" preset with dropout and label smoothing as given.
ModelConfig tiny_config(float dropout, float label_smoothing);

// Copy-or-reverse pairs over a vocabulary of `vocab` ids: the source is a control token (4 =
// copy, 5 = reverse) followed by 2..max_words words from [6, vocab); the target is the words in
// the same or reversed order. Deterministic for `seed`.
train::ParallelData copy_or_reverse(size_t pairs, int32_t vocab, int32_t max_words, uint64_t seed);

// Trains a unigram SentencePiece model with exactly `vocab` pieces and the PocketMT special ids
// on `text_path`; returns the model path (prefix + ".model").
std::string train_sentencepiece(const std::string& text_path, const std::string& prefix, int vocab);

// Lines of made-up words over a small alphabet, deterministic for `seed`.
std::vector<std::string> pseudo_sentences(size_t lines, uint64_t seed);

}  // namespace pmt::test
