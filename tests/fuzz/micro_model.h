// What the fuzz targets translate with: a micro model (the fixture's 64-piece tokenizer, d_model
// 8, 1 + 1 layers) with pseudo-random weights, written by the exporter's own writer, so that one
// load and translation cost microseconds, not milliseconds. Header-only: each target is its own
// executable.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "export/model_writer.h"
#include "pocketmt/config.h"

namespace pmt::fuzz {

inline ModelConfig micro_config() {
  ModelConfig c;
  c.vocab_size = 64;
  c.d_model = 8;
  c.n_heads = 2;
  c.d_ff = 16;
  c.n_enc_layers = 1;
  c.n_dec_layers = 1;
  c.max_len = 24;
  return c;
}

inline std::string fixture_tokenizer() {
  std::ifstream in(PMT_TEST_DATA_DIR "/tiny_spm64.model", std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (bytes.empty()) std::abort();  // a broken checkout, not a finding
  return bytes;
}

// The model file's bytes; I8: int8 Linear weights with fixed activation scales, per-channel
// output ranges on every Linear.
inline std::vector<uint8_t> micro_model(DType linear_dtype) {
  const ModelConfig config = micro_config();
  const std::string tokenizer = fixture_tokenizer();
  exporter::ModelContents c;
  c.config = config;
  c.tokenizer = tokenizer;
  c.linear_dtype = linear_dtype;
  std::vector<std::vector<float>> values;
  const std::vector<TensorSpec> specs = model_tensor_specs(config);
  values.reserve(specs.size());
  uint64_t state = 7;
  for (const TensorSpec& s : specs) {
    std::vector<float>& v = values.emplace_back(static_cast<size_t>(shape_numel(s.shape)));
    for (float& x : v) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      x = static_cast<float>(static_cast<double>(state >> 40) / double(1 << 24) * 2.0 - 1.0);
    }
    c.tensors.push_back({s, v.data()});
    if (!s.linear || linear_dtype != DType::I8) continue;
    exporter::LinearQuant& q = c.quant[s.name];
    q = {{0.05f, 0}, {0.1f, 0}};
    for (int64_t r = 0; r < s.shape[0]; ++r) q.output_ranges.insert(q.output_ranges.end(), {-4.f, 4.f});
  }
  std::vector<uint8_t> bytes;
  if (!exporter::build_model_file(c, &bytes).empty()) std::abort();
  return bytes;
}

// A copy in 64-byte aligned memory, as Translator::load(data, size) requires.
struct AlignedBuffer {
  explicit AlignedBuffer(const uint8_t* data, size_t size)
      : bytes(static_cast<uint8_t*>(std::aligned_alloc(64, (size + 63) / 64 * 64 + 64)), &std::free), size(size) {
    if (size > 0) std::memcpy(bytes.get(), data, size);
  }
  std::unique_ptr<uint8_t, decltype(&std::free)> bytes;
  size_t size;
};

}  // namespace pmt::fuzz
