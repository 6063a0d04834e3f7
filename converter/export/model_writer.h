// Serializing a model into the .pmt format (schema/pmt.fbs): config, tokenizer (zlib-compressed
// by default), every tensor in fp32 or with int8 Linear weights, calibrated activation
// quantization and provenance metadata.
// The output passes pmt::ModelFile's checks by construction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pocketmt/model_file.h"

namespace pmt::exporter {

// One model-file tensor as fp32 values owned elsewhere (product(spec.shape) floats).
struct WeightRef {
  TensorSpec spec;
  const float* values = nullptr;
};

// Calibrated activation quantization of one Linear (README "Model file").
struct LinearQuant {
  ActQuant input, output;
  // Optional per-output-channel calibrated ranges, [lo_0, hi_0, lo_1, hi_1, ...] (2 * rows
  // floats): empty, or written as the tensor's output_channel_ranges.
  std::vector<float> output_ranges;
};

// The output layer's vocabulary shortlist, owned; laid out as pmt::ShortlistView reads it.
struct Shortlist {
  std::vector<int32_t> frequent;
  std::vector<uint32_t> offsets;
  std::vector<uint16_t> targets;
};

struct ModelContents {
  ModelConfig config;
  std::string_view tokenizer;      // serialized SentencePiece ModelProto, non-empty
  // Zlib: deflated at level 9, written as format version 2 (the small preset's 379,537-byte
  // model shrinks to 201,914 bytes). Raw: as is, written as format version 1, which every
  // reader reads.
  TokenizerEncoding tokenizer_encoding = TokenizerEncoding::Zlib;
  std::vector<WeightRef> tensors;  // exactly model_tensor_specs(config), written in this order
  // F32: every tensor as is. I8: every Linear weight (spec.linear) quantized per row, carrying
  // quant.at(name); biases and norms stay F32.
  DType linear_dtype = DType::F32;
  std::map<std::string, LinearQuant> quant;  // by weight name; I8 only
  std::map<std::string, std::string> metadata;
  const Shortlist* shortlist = nullptr;  // optional; checked by the loader's rules
};

// Builds the file in memory: identifier, format version, tokenizer, 64-byte aligned tensor data and the
// CRC-32 over the result. Returns an error message (a missing, misshaped or non-finite tensor, a
// missing quantization) or empty; `out` is only written on success.
std::string build_model_file(const ModelContents& contents, std::vector<uint8_t>* out);

// Writes bytes as pmt::write_file_atomically (common/atomic_file.h) does: a failed export never
// leaves a half-written model, nor replaces a device or anything else that is not a file.
std::string write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace pmt::exporter
