// Shared fixtures of the runtime tests (tests/runtime and tests/alloc): a tiny trainer model with
// random or hand-set weights, exported with the exporter's own function, and loaded by the
// runtime from memory. Header-only because each test area is its own executable.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "common/safetensors.h"
#include "export/export.h"
#include "pocketmt/config.h"
#include "pocketmt/translator.h"
#include "train/model.h"
#include "train/parallel_data.h"

namespace pmt::test {

// The tiny preset (V = 64, D = 32, 4 heads, F = 64, 2 + 2 layers, max_len 64), eval settings.
inline ModelConfig tiny_config(bool pre_ln = false) {
  ModelConfig c;
  REQUIRE(preset_config("tiny", &c));
  c.pre_ln = pre_ln;
  c.dropout = 0.f;
  c.label_smoothing = 0.f;
  return c;
}

// The fixture tokenizer: 64 pieces, PocketMT special ids (tests/runtime/make_tiny_spm64.py).
inline std::string tiny_tokenizer() {
  std::ifstream in(PMT_TEST_DATA_DIR "/tiny_spm64.model", std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A trainer model whose buffers admit `batch` sentences of up to max_len tokens.
inline std::unique_ptr<train::Transformer> make_model(const ModelConfig& c, int32_t batch) {
  return std::make_unique<train::Transformer>(c, train::BatchLimits{batch, c.max_len, c.max_len, 0, 0});
}

// The model's parameters as a checkpoint, in memory.
inline StFile checkpoint_of(const train::Transformer& model) {
  StFile file;
  file.metadata = config_to_metadata(model.config());
  for (const train::TensorInfo& t : model.tensors()) {
    const float* p = model.params() + t.offset;
    file.tensors.push_back({t.name, t.shape, std::vector<float>(p, p + t.numel)});
  }
  return file;
}

// Random token ids in [4, vocab): no special tokens.
inline std::vector<int32_t> random_ids(std::mt19937& rng, size_t n, int32_t vocab) {
  std::uniform_int_distribution<int32_t> id(4, vocab - 1);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = id(rng);
  return v;
}

// Random sentence pairs for int8 calibration.
inline train::ParallelData random_pairs(size_t n, int32_t vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  train::ParallelData data;
  for (size_t i = 0; i < n; ++i) {
    const auto src = random_ids(rng, 3 + i % 12, vocab);
    const auto tgt = random_ids(rng, 2 + (i * 7) % 13, vocab);
    data.add(src, tgt);
  }
  return data;
}

// A .pmt file in memory, 64-byte aligned as ModelFile::from_buffer requires.
class ModelBytes {
 public:
  explicit ModelBytes(const std::vector<uint8_t>& bytes)
      : size_(bytes.size()), data_(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64))) {
    std::memcpy(data_.get(), bytes.data(), bytes.size());
  }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  size_t size_;
  std::unique_ptr<uint8_t, Free> data_;
};

// Exports `model` with the exporter (int8: calibrated on random pairs; channel_margin 0: without
// per-channel output ranges), with the given metadata and vocabulary shortlist.
inline ModelBytes export_model(const train::Transformer& model, DType dtype, double channel_margin = 1.1,
                               const std::map<std::string, std::string>& metadata = {},
                               const exporter::Shortlist* shortlist = nullptr) {
  exporter::ExportOptions options;
  options.dtype = dtype;
  options.channel_margin = channel_margin;
  options.shortlist = shortlist;
  const train::ParallelData calib = random_pairs(200, model.config().vocab_size, 5);
  std::vector<uint8_t> bytes;
  const std::string error = exporter::export_model(checkpoint_of(model), tiny_tokenizer(),
                                                   dtype == DType::I8 ? &calib : nullptr, options, metadata, &bytes);
  REQUIRE_MESSAGE(error.empty(), error);
  return ModelBytes(bytes);
}

// The Translator reads the buffer in place: `bytes` must outlive it.
inline std::unique_ptr<Translator> load(const ModelBytes& bytes, const LoadOptions& options) {
  std::unique_ptr<Translator> t;
  const Status s = Translator::load(bytes.data(), bytes.size(), options, &t);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return t;
}

std::unique_ptr<Translator> load(const ModelBytes&& temporary, const LoadOptions& options) = delete;

// spans over a list of id vectors.
inline std::vector<std::span<const int32_t>> spans(const std::vector<std::vector<int32_t>>& v) {
  return {v.begin(), v.end()};
}

// A sentence pair for teacher forcing: ids without EOS (source) and without BOS/EOS (target).
struct Pair {
  std::vector<int32_t> src, tgt;
};

// Every step's logits of teacher-forced scoring, [sentence][step * V + v].
inline std::vector<std::vector<float>> step_logits(Translator* t, const std::vector<std::vector<int32_t>>& src,
                                                   const std::vector<std::vector<int32_t>>& tgt) {
  std::vector<std::vector<float>> got(src.size());
  LogitsCallback on_step{[](void* user, const StepLogits& s) {
                           auto& out = (*static_cast<std::vector<std::vector<float>>*>(user))[s.sentence];
                           out.insert(out.end(), s.logits.begin(), s.logits.end());
                         },
                         &got};
  std::vector<float> log_probs(src.size());
  const Status s = t->score_ids(spans(src), spans(tgt), log_probs, on_step);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return got;
}

// log softmax(row)[token] in double.
inline double log_prob(const float* row, size_t n, int32_t token) {
  double m = row[0], z = 0;
  for (size_t i = 1; i < n; ++i) m = std::max(m, double{row[i]});
  for (size_t i = 0; i < n; ++i) z += std::exp(row[i] - m);
  return row[token] - m - std::log(z);
}

// Runs the trainer (eval mode) on the padded batch of `pairs`, teacher-forced with BOS + target,
// and returns its logits [B, T, V]; *T_out = T (the longest target + 1).
inline std::vector<float> trainer_logits(train::Transformer* model, const std::vector<Pair>& pairs, int32_t* T_out) {
  train::Batch batch;
  batch.batch = static_cast<int32_t>(pairs.size());
  for (const Pair& p : pairs) {
    batch.src_len = std::max<int32_t>(batch.src_len, static_cast<int32_t>(p.src.size()) + 1);
    batch.tgt_len = std::max<int32_t>(batch.tgt_len, static_cast<int32_t>(p.tgt.size()) + 1);
  }
  const int32_t S = batch.src_len, T = batch.tgt_len;
  batch.src.assign(pairs.size() * S, kPadId);
  batch.tgt_in.assign(pairs.size() * T, kPadId);
  batch.tgt_out.assign(pairs.size() * T, kPadId);
  for (size_t b = 0; b < pairs.size(); ++b) {
    const Pair& p = pairs[b];
    std::copy(p.src.begin(), p.src.end(), batch.src.begin() + b * S);
    batch.src[b * S + p.src.size()] = kEosId;
    batch.tgt_in[b * T] = kBosId;
    std::copy(p.tgt.begin(), p.tgt.end(), batch.tgt_in.begin() + b * T + 1);
    std::copy(p.tgt.begin(), p.tgt.end(), batch.tgt_out.begin() + b * T);
    batch.tgt_out[b * T + p.tgt.size()] = kEosId;
  }
  model->forward(batch, /*train=*/false, train::DropoutRng{});
  *T_out = T;
  const size_t n = pairs.size() * T * model->config().vocab_size;
  return {model->logits(), model->logits() + n};
}

// The trainer's log-probability of `tokens` (then EOS if `with_eos`) given `src`.
inline double trainer_log_prob(train::Transformer* model, const Pair& pair, bool with_eos) {
  int32_t T = 0;
  const std::vector<float> logits = trainer_logits(model, {pair}, &T);
  const size_t V = model->config().vocab_size;
  double sum = 0;
  for (size_t t = 0; t < pair.tgt.size(); ++t) sum += log_prob(logits.data() + t * V, V, pair.tgt[t]);
  if (with_eos) sum += log_prob(logits.data() + pair.tgt.size() * V, V, kEosId);
  return sum;
}

}  // namespace pmt::test
