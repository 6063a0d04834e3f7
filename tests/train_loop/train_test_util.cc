#include "train_test_util.h"

#include <sentencepiece_trainer.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <stdexcept>

namespace pmt::test {

ScratchDir::ScratchDir(const std::string& name) {
  path_ = std::filesystem::temp_directory_path() / ("pmt_train_loop_" + name + "_" + std::to_string(std::random_device{}()));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

ModelConfig tiny_config(float dropout, float label_smoothing) {
  ModelConfig c;
  if (!preset_config("tiny", &c)) throw std::logic_error("no tiny preset");
  c.dropout = dropout;
  c.label_smoothing = label_smoothing;
  return c;
}

train::ParallelData copy_or_reverse(size_t pairs, int32_t vocab, int32_t max_words, uint64_t seed) {
  std::mt19937_64 rng(seed);
  train::ParallelData data;
  std::vector<int32_t> src, tgt;
  for (size_t i = 0; i < pairs; ++i) {
    const bool reverse = rng() % 2;
    const auto words = static_cast<int32_t>(2 + rng() % static_cast<uint64_t>(max_words - 1));
    src.assign(1, reverse ? 5 : 4);
    tgt.clear();
    for (int32_t w = 0; w < words; ++w) {
      const auto id = static_cast<int32_t>(6 + rng() % static_cast<uint64_t>(vocab - 6));
      src.push_back(id);
      tgt.push_back(id);
    }
    if (reverse) std::reverse(tgt.begin(), tgt.end());
    data.add(src, tgt);
  }
  return data;
}

std::string train_sentencepiece(const std::string& text_path, const std::string& prefix, int vocab) {
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + text_path + " --model_prefix=" + prefix + " --vocab_size=" + std::to_string(vocab) +
      " --model_type=unigram --character_coverage=1.0 --pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3"
      " --minloglevel=2 --num_threads=1");
  if (!status.ok()) throw std::runtime_error("spm_train: " + status.ToString());
  return prefix + ".model";
}

std::vector<std::string> pseudo_sentences(size_t lines, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string letters = "abcdefghiklmnoprstu";
  std::vector<std::string> out;
  for (size_t i = 0; i < lines; ++i) {
    std::string line;
    const auto words = 2 + rng() % 8;
    for (uint64_t w = 0; w < words; ++w) {
      if (w) line += ' ';
      const auto len = 1 + rng() % 6;
      for (uint64_t k = 0; k < len; ++k) line += letters[rng() % letters.size()];
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace pmt::test
