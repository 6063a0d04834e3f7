// Reading a PocketMT model file (.pmt, schema/pmt.fbs): open by mmap or wrap a caller's buffer,
// verify it completely, then hand out zero-copy views of the config and every tensor, and the
// tokenizer (a view of the file, or of a copy inflated at open when the file stores it
// zlib-compressed). Used by the runtime and by `pmt-convert inspect`. Errors are values: nothing
// here aborts or throws on a bad file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pocketmt/config.h"

namespace pmt {

// The format versions this reader understands (Model.format_version), oldest to newest. The
// writer writes the newest for a zlib-compressed tokenizer, the oldest for a raw one.
inline constexpr uint32_t kOldestModelFormatVersion = 1;
inline constexpr uint32_t kModelFormatVersion = 2;
// Every tensor's data starts at a file offset that is a multiple of this (in bytes).
inline constexpr size_t kTensorAlignment = 64;

// Storage type of a tensor; the values are those of pmt.fb.DType.
enum class DType : int8_t {
  F32 = 0,  // little-endian IEEE float32
  I8 = 1,   // symmetric int8 in [-127, 127]: real = scales[row] * q
};
const char* dtype_name(DType dtype);  // "f32", "i8"
size_t dtype_size(DType dtype);       // bytes per element

// How the file stores the tokenizer; the values are those of pmt.fb.TokenizerEncoding.
enum class TokenizerEncoding : uint8_t {
  Raw = 0,   // the SentencePiece ModelProto bytes as is
  Zlib = 1,  // one zlib stream (format version 2 and later)
};
const char* tokenizer_encoding_name(TokenizerEncoding encoding);  // "raw", "zlib"

// Affine int8 quantization of an activation: real = scale * (q - zero_point), q in [-128, 127].
struct ActQuant {
  float scale = 1.f;       // > 0 and finite
  int32_t zero_point = 0;  // in [-128, 127]
};

// Element count of a row-major shape (1 for an empty shape) and its text form, "[8000, 256]".
int64_t shape_numel(const std::vector<int64_t>& shape);
std::string shape_string(const std::vector<int64_t>& shape);

// A tensor the model file must hold, in model-file naming (README "Model file"): the checkpoint
// names, except that cross-attention's fused in_proj is split into q_proj [D, D] / [D] and
// kv_proj [2D, D] / [2D] because Q and K/V read different inputs.
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;  // row-major; Linear weights [out, in]
  // Linear weights (and embed.weight, which is also the output projection) may be stored as I8
  // with calibrated activation quantization; every other tensor is F32.
  bool linear = false;
};
// Every tensor of a model with this config, in a fixed order (embed, encoder layers, decoder
// layers, final norms when pre_ln). The config must be valid (ModelConfig::validate()).
std::vector<TensorSpec> model_tensor_specs(const ModelConfig& config);

// A zero-copy view of one tensor inside the file. Pointers stay valid while the ModelFile lives.
struct TensorView {
  std::string_view name;
  std::vector<int64_t> shape;  // row-major; Linear weights [out, in]
  DType dtype = DType::F32;
  const void* data = nullptr;  // numel * dtype_size(dtype) bytes, 64-byte aligned in the file
  size_t bytes = 0;
  const float* scales = nullptr;  // I8: shape[0] per-row scales (> 0, finite); F32: nullptr
  // Calibrated activation quantization of this Linear's input and output (logits for
  // embed.weight). Present exactly for I8 Linear weights.
  std::optional<ActQuant> input_quant, output_quant;
  // I8 Linear weights, optional: the calibrated range of each output channel r,
  // [output_ranges[2r], output_ranges[2r + 1]] as binary16 bits (half_to_float; lo <= hi,
  // finite); nullptr when the file has none.
  const uint16_t* output_ranges = nullptr;

  int64_t numel() const { return shape_numel(shape); }
  const float* f32() const { return static_cast<const float*>(data); }    // dtype F32 only
  const int8_t* i8() const { return static_cast<const int8_t*>(data); }   // dtype I8 only
};

// The output layer's vocabulary shortlist (schema Shortlist, docs/model-format.md): the target
// ids a sentence can produce are `frequent` plus of(s) for each of its source ids s. Views of the
// file, checked at load: ids in [0, vocab_size), each list ascending, offsets consistent.
struct ShortlistView {
  std::span<const int32_t> frequent;
  std::span<const uint32_t> offsets;  // vocab_size + 1
  std::span<const uint16_t> targets;
  std::span<const uint16_t> of(int32_t source) const {
    return targets.subspan(offsets[source], offsets[source + 1] - offsets[source]);
  }
};

class ModelFile {
 public:
  // Maps `path` read-only and verifies it. On failure returns nullptr and sets *error (if not
  // null) to a message naming the file and the problem.
  static std::unique_ptr<ModelFile> open(const std::string& path, std::string* error);
  // Verifies `size` bytes at `data` without copying them (a compressed tokenizer excepted, which
  // is inflated into memory the ModelFile owns). The buffer is not owned: it must stay
  // alive and unchanged while the ModelFile lives, and must be 64-byte aligned so that weights
  // can be read in place. On failure returns nullptr and sets *error.
  static std::unique_ptr<ModelFile> from_buffer(const void* data, size_t size, std::string* error);

  ~ModelFile();
  ModelFile(const ModelFile&) = delete;
  ModelFile& operator=(const ModelFile&) = delete;

  // Architecture and special ids. Training-only fields (dropout, label_smoothing) are 0.
  const ModelConfig& config() const { return config_; }
  uint32_t format_version() const { return format_version_; }
  // The serialized SentencePiece ModelProto (what the runtime's tokenizer reads),
  // decoded: a view of the file for Raw, of the copy inflated at open for Zlib. Empty after
  // release_tokenizer().
  std::string_view tokenizer() const { return tokenizer_; }
  // How the file stores the tokenizer, and how many bytes it takes there (the compressed size
  // for Zlib; tokenizer().size() is the decoded size).
  TokenizerEncoding tokenizer_encoding() const { return tokenizer_encoding_; }
  size_t tokenizer_stored_bytes() const { return tokenizer_stored_bytes_; }
  // Frees the inflated tokenizer copy once the caller has parsed it (SentencePiece keeps its own
  // parsed model), so that it does not count against the process's memory for the ModelFile's
  // lifetime. tokenizer() is empty afterwards.
  void release_tokenizer();
  // Every tensor, in file order (the exporter writes model_tensor_specs order).
  const std::vector<TensorView>& tensors() const { return tensors_; }
  // nullptr when the file holds no tensor of that name.
  const TensorView* find(std::string_view name) const;
  // True when any tensor is I8.
  bool quantized() const { return quantized_; }
  // Provenance key/value pairs (source checkpoint, calibration settings, tool version).
  const std::vector<std::pair<std::string_view, std::string_view>>& metadata() const { return metadata_; }
  std::string_view metadata(std::string_view key) const;  // empty when absent
  // The length penalty the model was tuned with: metadata `decode.alpha` (a decimal number in
  // [0, 100], checked at load), else kFallbackAlpha.
  float default_alpha() const { return default_alpha_; }
  // The letter penalty the model was tuned with: metadata `decode.letter_penalty` (a decimal
  // number in [0, 100], checked at load), else 0 (off).
  float default_letter_penalty() const { return default_letter_penalty_; }
  // nullptr when the file has no shortlist.
  const ShortlistView* shortlist() const { return shortlist_ ? &*shortlist_ : nullptr; }
  // The whole file as read.
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  ModelFile() = default;
  // Fills the views from data_/size_; returns an empty string or the reason the file is bad.
  std::string load();

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;  // data_ is our mmap and is unmapped by the destructor
  uint32_t format_version_ = 0;
  ModelConfig config_;
  std::string_view tokenizer_;
  std::string inflated_tokenizer_;  // Zlib: the decoded bytes tokenizer_ views; empty for Raw
  TokenizerEncoding tokenizer_encoding_ = TokenizerEncoding::Raw;
  size_t tokenizer_stored_bytes_ = 0;
  std::vector<TensorView> tensors_;
  std::unordered_map<std::string_view, size_t> index_;
  std::vector<std::pair<std::string_view, std::string_view>> metadata_;
  float default_alpha_ = kFallbackAlpha;
  float default_letter_penalty_ = 0.f;
  std::optional<ShortlistView> shortlist_;
  bool quantized_ = false;
};

// IEEE binary16, the storage of per-channel output ranges: the exact float value of bits `h`,
// and the half nearest to `x` in the given direction (x finite, |x| <= 65504).
float half_to_float(uint16_t h);
enum class HalfRounding { kDown, kUp };  // toward -inf, toward +inf
uint16_t float_to_half(float x, HalfRounding rounding);

// CRC-32 (IEEE 802.3, zlib's crc32) of `size` bytes, continuing from `crc`
// (0 to start). The model file stores the CRC of the whole file with its own 4 bytes read as 0.
uint32_t crc32(const void* data, size_t size, uint32_t crc = 0);

}  // namespace pmt
