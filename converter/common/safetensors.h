// Checkpoints in the safetensors format (https://github.com/huggingface/safetensors): an 8-byte
// little-endian u64 header size N, N bytes of JSON header (padded with spaces to a multiple of
// 8), then the raw little-endian tensor data. Only F32 tensors are supported. Tensor names and
// metadata keys are those of README.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/config.h"

namespace pmt {

struct StTensor {
  std::string name;
  std::vector<int64_t> shape;  // row-major; empty = scalar (1 element)
  std::vector<float> data;     // product(shape) values
};

struct StFile {
  std::map<std::string, std::string> metadata;  // the header's "__metadata__" map
  std::vector<StTensor> tensors;                // file order: data offsets ascending
  const StTensor* find(std::string_view name) const;  // nullptr when absent
};

// Reads a whole file. Returns an empty string on success, otherwise a message naming the file
// and the problem (missing, truncated, bad JSON, non-F32 dtype, offsets out of range,
// overlapping or leaving gaps, shape/size mismatch). `out` is only written on success.
std::string read_safetensors(const std::string& path, StFile* out);

// Writes `file` atomically (common/atomic_file.h: a temporary file in the same directory, fsync,
// rename over `path`, fsync the directory), so a crash leaves either the old or the new
// checkpoint; never replaces what is not a regular file. Tensors are laid out in vector order.
// Returns an empty string on success, otherwise a message naming the file and the problem.
std::string write_safetensors(const std::string& path, const StFile& file);

// ModelConfig <-> "__metadata__" strings: one key per field, named as the field (vocab_size,
// d_model, ..., pre_ln as "0"/"1", pad_id, unk_id, bos_id, eos_id); floats with %.9g so they
// round-trip exactly.
std::map<std::string, std::string> config_to_metadata(const ModelConfig& c);
// Reads every field back (other keys are ignored) and validates the result. Returns an empty
// string on success, otherwise a message naming the missing or bad key. `out` is only written
// on success.
std::string config_from_metadata(const std::map<std::string, std::string>& m, ModelConfig* out);

}  // namespace pmt
