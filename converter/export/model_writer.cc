#include "export/model_writer.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include <zlib.h>

#include "common/atomic_file.h"
#include "export/quantize.h"
#include "pocketmt/pmt_generated.h"

namespace pmt::exporter {

namespace {

// Checks that `contents.tensors` is exactly the config's tensor list with finite values.
std::string check_tensors(const ModelContents& contents) {
  if (std::string why = contents.config.validate(); !why.empty()) return "bad config: " + why;
  const std::vector<TensorSpec> specs = model_tensor_specs(contents.config);
  std::map<std::string_view, const TensorSpec*> expected;
  for (const TensorSpec& s : specs) expected.emplace(s.name, &s);
  std::unordered_set<std::string_view> seen;
  for (const WeightRef& t : contents.tensors) {
    auto it = expected.find(t.spec.name);
    if (it == expected.end()) return "tensor '" + t.spec.name + "' is not part of this model";
    if (!seen.insert(t.spec.name).second) return "tensor '" + t.spec.name + "' given twice";
    if (t.spec.shape != it->second->shape || t.spec.linear != it->second->linear)
      return "tensor '" + t.spec.name + "' does not match the config's shape";
    const int64_t n = shape_numel(t.spec.shape);
    for (int64_t i = 0; i < n; ++i)
      if (!std::isfinite(t.values[i]))
        return "tensor '" + t.spec.name + "' holds a non-finite value at element " + std::to_string(i);
  }
  for (const TensorSpec& s : specs)
    if (!seen.count(s.name)) return "tensor '" + s.name + "' is missing";
  if (contents.tokenizer.empty()) return "empty tokenizer";
  return {};
}

// Raw bytes as a vector whose data starts 64 bytes aligned in the finished file. This is what
// ForceVectorAlignment does, without its debug assertion that alignments stay within
// FLATBUFFERS_MAX_ALIGNMENT (32 in FlatBuffers 2.0); the finished buffer's size is a multiple
// of the largest alignment requested, so offsets from its end are offsets from its start.
flatbuffers::Offset<flatbuffers::Vector<uint8_t>> aligned_bytes(flatbuffers::FlatBufferBuilder& fbb,
                                                                 const void* data, size_t bytes) {
  fbb.PreAlign(bytes, kTensorAlignment);
  return fbb.CreateVector(static_cast<const uint8_t*>(data), bytes);
}

// The tokenizer as one zlib stream at the highest compression level (it is written once and
// read at every load, so only its size matters).
std::string deflate_tokenizer(std::string_view tokenizer, std::vector<uint8_t>* out) {
  uLongf bytes = compressBound(tokenizer.size());
  out->resize(bytes);
  if (compress2(out->data(), &bytes, reinterpret_cast<const Bytef*>(tokenizer.data()), tokenizer.size(),
                Z_BEST_COMPRESSION) != Z_OK)
    return "cannot compress the tokenizer (out of memory)";
  out->resize(bytes);
  return {};
}

}  // namespace

std::string build_model_file(const ModelContents& contents, std::vector<uint8_t>* out) {
  if (std::string why = check_tensors(contents); !why.empty()) return why;
  const bool int8 = contents.linear_dtype == DType::I8;
  flatbuffers::FlatBufferBuilder fbb(1 << 20);

  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  std::vector<int8_t> q;
  std::vector<float> scales;
  for (const WeightRef& t : contents.tensors) {
    const int64_t n = shape_numel(t.spec.shape);
    auto name = fbb.CreateString(t.spec.name);
    auto shape = fbb.CreateVector(t.spec.shape);
    if (!int8 || !t.spec.linear) {
      auto data = aligned_bytes(fbb, t.values, static_cast<size_t>(n) * sizeof(float));
      tensors.push_back(fb::CreateTensor(fbb, name, shape, fb::DType::F32, data));
      continue;
    }
    auto quant = contents.quant.find(t.spec.name);
    if (quant == contents.quant.end()) return "tensor '" + t.spec.name + "' has no calibrated quantization";
    const int64_t rows = t.spec.shape[0];
    q.resize(static_cast<size_t>(n));
    scales.resize(static_cast<size_t>(rows));
    quant::quantize_rows(t.values, rows, n / rows, q.data(), scales.data());
    auto data = aligned_bytes(fbb, q.data(), q.size());
    auto scale_vec = fbb.CreateVector(scales);
    const fb::ActQuant in(quant->second.input.scale, quant->second.input.zero_point);
    const fb::ActQuant outq(quant->second.output.scale, quant->second.output.zero_point);
    const std::vector<float>& ranges = quant->second.output_ranges;
    if (!ranges.empty() && static_cast<int64_t>(ranges.size()) != 2 * rows)
      return "tensor '" + t.spec.name + "' has " + std::to_string(ranges.size()) + " output range values, not " +
             std::to_string(2 * rows);
    std::vector<uint16_t> halves(ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (!(std::fabs(ranges[i]) <= 65504.f))
        return "tensor '" + t.spec.name + "' output range value " + std::to_string(ranges[i]) +
               " is beyond float16 (calibration diverged?)";
      halves[i] = float_to_half(ranges[i], i % 2 == 0 ? HalfRounding::kDown : HalfRounding::kUp);
    }
    flatbuffers::Offset<flatbuffers::Vector<uint16_t>> range_vec;
    if (!halves.empty()) range_vec = fbb.CreateVector(halves);
    tensors.push_back(fb::CreateTensor(fbb, name, shape, fb::DType::I8, data, scale_vec, &in, &outq, range_vec));
  }
  auto tensor_vec = fbb.CreateVector(tensors);

  std::vector<flatbuffers::Offset<fb::KeyValue>> metadata;
  for (const auto& [key, value] : contents.metadata)
    metadata.push_back(fb::CreateKeyValue(fbb, fbb.CreateString(key), fbb.CreateString(value)));
  auto metadata_vec = fbb.CreateVectorOfSortedTables(&metadata);

  const bool zlib = contents.tokenizer_encoding == TokenizerEncoding::Zlib;
  std::vector<uint8_t> deflated;
  if (zlib)
    if (std::string why = deflate_tokenizer(contents.tokenizer, &deflated); !why.empty()) return why;
  auto tokenizer = zlib ? fbb.CreateVector(deflated)
                        : fbb.CreateVector(reinterpret_cast<const uint8_t*>(contents.tokenizer.data()),
                                           contents.tokenizer.size());
  flatbuffers::Offset<fb::Shortlist> shortlist;
  if (const Shortlist* list = contents.shortlist)
    shortlist = fb::CreateShortlist(fbb, fbb.CreateVector(list->frequent), fbb.CreateVector(list->offsets),
                                    fbb.CreateVector(list->targets));
  const ModelConfig& c = contents.config;
  auto config = fb::CreateConfig(fbb, c.vocab_size, c.d_model, c.n_heads, c.d_ff, c.n_enc_layers, c.n_dec_layers,
                                 c.max_len, c.pre_ln, c.ln_eps, c.pad_id, c.unk_id, c.bos_id, c.eos_id);
  // The checksum is written as 0 and patched below, once the bytes it covers are final.
  // A raw tokenizer needs nothing of version 2, so such a file stays readable by version 1 readers.
  auto model = zlib ? fb::CreateModel(fbb, kModelFormatVersion, 0u, config, tokenizer, tensor_vec, metadata_vec,
                                      fb::TokenizerEncoding::Zlib, contents.tokenizer.size(), shortlist)
                    : fb::CreateModel(fbb, kOldestModelFormatVersion, 0u, config, tokenizer, tensor_vec, metadata_vec,
                                      fb::TokenizerEncoding::Raw, 0, shortlist);
  fb::FinishModelBuffer(fbb, model);

  std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  const auto* root = reinterpret_cast<const flatbuffers::Table*>(fb::GetModel(bytes.data()));
  const size_t crc_at = static_cast<size_t>(root->GetAddressOf(fb::Model::VT_CRC32) - bytes.data());
  const uint32_t crc = crc32(bytes.data(), bytes.size());
  std::memcpy(bytes.data() + crc_at, &crc, sizeof crc);
  *out = std::move(bytes);
  return {};
}

std::string write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  return pmt::write_file_atomically(path, [&](int fd) { return write_all(fd, bytes.data(), bytes.size()); });
}

}  // namespace pmt::exporter
