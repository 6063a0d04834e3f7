// The trainable encoder-decoder Transformer (fp32, llm.c style).
// Parameters, gradients and Adam moments are each ONE contiguous float blob; every named tensor
// (the checkpoint names of README.md) is a view at a fixed offset. Activations live in one buffer
// sized at construction for the largest batch; forward/backward never allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pocketmt/config.h"

namespace pmt::train {

// One named parameter tensor inside the blob.
struct TensorInfo {
  std::string name;            // checkpoint name, e.g. "decoder.layers.1.linear2.weight"
  std::vector<int64_t> shape;  // row-major; Linear weights [out, in]
  size_t offset = 0;           // in floats, from the start of the blob
  size_t numel = 0;
};

// A padded batch. Every row of src ends with EOS then pad; tgt_in starts with BOS;
// tgt_out is tgt_in shifted left and ends with EOS; pads are pad_id and carry no loss.
struct Batch {
  int32_t batch = 0;                 // B
  int32_t src_len = 0;               // S (max over the batch)
  int32_t tgt_len = 0;               // T (max over the batch)
  std::vector<int32_t> src;          // [B, S]
  std::vector<int32_t> tgt_in;       // [B, T]
  std::vector<int32_t> tgt_out;      // [B, T]
  int64_t target_tokens() const;     // non-pad entries of tgt_out
};

// Counter-based RNG for dropout masks: the same (seed, step) gives the same masks whatever the
// thread count, which keeps training deterministic and resumable.
struct DropoutRng {
  uint64_t seed = 0;
  uint64_t step = 0;
};

// Largest batch the activation buffer must hold: B*S and B*T bounds (tokens incl. padding).
struct BatchLimits {
  int32_t max_batch = 0;
  int32_t max_src_len = 0;
  int32_t max_tgt_len = 0;
};

class Transformer {
 public:
  Transformer(const ModelConfig& config, const BatchLimits& limits);

  const ModelConfig& config() const { return config_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find(const std::string& name) const;  // nullptr when absent
  size_t num_params() const { return params_.size(); }
  float* params() { return params_.data(); }
  const float* params() const { return params_.data(); }
  float* grads() { return grads_.data(); }

  // Paper-style init from a seed: Xavier-uniform Linear weights, N(0, D^-0.5) embeddings,
  // zero biases, LayerNorm weight 1 / bias 0.
  void init(uint64_t seed);
  void zero_grad();

  // Runs the model on `batch` and returns the mean label-smoothed cross-entropy per non-pad
  // target token. train=true applies dropout from `rng`; false is the deterministic eval path.
  float forward(const Batch& batch, bool train, const DropoutRng& rng);
  // Accumulates d(loss)/d(params) of the last forward into grads(). Requires forward first.
  void backward();

  // Logits of the last forward, [B, T, V] row-major (valid until the next forward).
  const float* logits() const;
  // Encoder output of the last forward, [B, S, D] (after the final norm when pre_ln).
  const float* encoder_output() const;

  // Every Linear's input and output of the last forward, for int8 calibration. For cross
  // attention the Q part and the K/V part have different inputs, so they are listed separately
  // with names "<prefix>.multihead_attn.q" and "<prefix>.multihead_attn.kv"; the output
  // projection is listed as "embed" (input: final decoder states, output: logits).
  struct LinearIO {
    std::string name;
    const float* input; size_t input_numel;
    const float* output; size_t output_numel;
  };
  std::vector<LinearIO> linear_io() const;

 private:
  ModelConfig config_;
  BatchLimits limits_;
  std::vector<TensorInfo> tensors_;
  std::vector<float> params_, grads_, acts_;
  // Implementation-defined offsets into acts_ and per-layer parameter offsets follow.
};

}  // namespace pmt::train
