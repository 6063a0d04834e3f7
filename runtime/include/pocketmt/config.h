// PocketMT model configuration: every size of the Transformer is a field here.
// Shared contract between the converter (trainer, exporter) and the runtime.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pmt {

// Special token ids, fixed by the vocabulary trainer (converter `vocab`) and stored in
// checkpoints and model files. SentencePiece is trained with exactly these ids.
inline constexpr int32_t kPadId = 0;
inline constexpr int32_t kUnkId = 1;
inline constexpr int32_t kBosId = 2;  // first decoder input token
inline constexpr int32_t kEosId = 3;  // appended to every source and target sentence
// The beam search length penalty of a model file without one (pmt-convert export --alpha sets it).
inline constexpr float kFallbackAlpha = 0.6f;

struct ModelConfig {
  int32_t vocab_size = 8000;   // shared source/target vocabulary
  int32_t d_model = 256;
  int32_t n_heads = 4;         // d_model % n_heads == 0; d_head = d_model / n_heads
  int32_t d_ff = 1024;
  int32_t n_enc_layers = 3;
  int32_t n_dec_layers = 3;
  int32_t max_len = 256;       // longest sequence (tokens incl. BOS/EOS) positions are built for
  float dropout = 0.1f;        // training only
  float label_smoothing = 0.1f;  // training only
  bool pre_ln = false;         // false: post-LN as in the paper; true: pre-LN + final norms
  float ln_eps = 1e-5f;        // LayerNorm epsilon (PyTorch's default)
  int32_t pad_id = kPadId, unk_id = kUnkId, bos_id = kBosId, eos_id = kEosId;

  int32_t d_head() const { return d_model / n_heads; }
  // Empty when the config is usable, otherwise a message naming the bad field.
  std::string validate() const;
  bool operator==(const ModelConfig&) const = default;
};

// Named presets: "tiny" (tests), "small" (the Bible model), "general" (the shipped general-domain
// model: 8,000 pieces, 6 encoder and 2 decoder layers of the small width), "base" (the paper's
// base model).
// Returns false for an unknown name.
bool preset_config(std::string_view name, ModelConfig* out);

}  // namespace pmt
