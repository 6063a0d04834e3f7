#include "pocketmt/config.h"

#include <cmath>

namespace pmt {

std::string ModelConfig::validate() const {
  auto positive = [](int32_t v) { return v > 0; };
  if (!positive(vocab_size)) return "vocab_size must be > 0";
  if (vocab_size <= eos_id || vocab_size <= bos_id || vocab_size <= pad_id || vocab_size <= unk_id)
    return "vocab_size must exceed the special token ids";
  if (!positive(d_model)) return "d_model must be > 0";
  if (!positive(n_heads)) return "n_heads must be > 0";
  if (d_model % n_heads != 0) return "d_model must be divisible by n_heads";
  if (!positive(d_ff)) return "d_ff must be > 0";
  if (n_enc_layers < 1) return "n_enc_layers must be >= 1";
  if (n_dec_layers < 1) return "n_dec_layers must be >= 1";
  if (max_len < 2) return "max_len must be >= 2";
  if (!(dropout >= 0.f && dropout < 1.f)) return "dropout must be in [0, 1)";
  if (!(label_smoothing >= 0.f && label_smoothing < 1.f)) return "label_smoothing must be in [0, 1)";
  if (!(ln_eps > 0.f && ln_eps < INFINITY)) return "ln_eps must be > 0 and finite";
  return {};
}

bool preset_config(std::string_view name, ModelConfig* out) {
  ModelConfig c;
  if (name == "tiny") {
    c.vocab_size = 64; c.d_model = 32; c.n_heads = 4; c.d_ff = 64;
    c.n_enc_layers = 2; c.n_dec_layers = 2; c.max_len = 64;
  } else if (name == "small") {
    c.vocab_size = 8000; c.d_model = 256; c.n_heads = 4; c.d_ff = 1024;
    c.n_enc_layers = 3; c.n_dec_layers = 3; c.max_len = 256;
  } else if (name == "general") {
    // Deep encoder, shallow decoder: the decoder runs once per output token, the encoder once per
    // sentence, so encoder layers cost little latency (Kasai et al., 2021).
    c.vocab_size = 8000; c.d_model = 256; c.n_heads = 4; c.d_ff = 1024;
    c.n_enc_layers = 6; c.n_dec_layers = 2; c.max_len = 256;
  } else if (name == "base") {
    c.vocab_size = 8000; c.d_model = 512; c.n_heads = 8; c.d_ff = 2048;
    c.n_enc_layers = 6; c.n_dec_layers = 6; c.max_len = 256;
  } else {
    return false;
  }
  *out = c;
  return true;
}

}  // namespace pmt
