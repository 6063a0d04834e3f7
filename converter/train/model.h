// The trainable encoder-decoder Transformer (fp32, llm.c style).
// Parameters, gradients and Adam moments are each ONE contiguous float blob; every named tensor
// (the checkpoint names of README.md) is a view at a fixed offset. Activations live in one buffer
// sized at construction for the largest batch; forward/backward never allocate.
// Threads: GEMMs run on OpenBLAS's threads (the bf16 GEMM on its own pool, as wide); the other ops
// are split over as many threads as OpenBLAS is set to use (openblas_set_num_threads), so that is
// the one knob.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pocketmt/config.h"
#include "train/ops/attention.h"
#include "train/ops/dropout.h"

namespace pmt::rt {
class ThreadPool;  // runtime/src/thread_pool.h
}  // namespace pmt::rt

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
// With token-based batching, max_src_tokens / max_tgt_tokens bound B*S and B*T more tightly than
// max_batch * max_len (0 = no extra bound), which keeps the [B*T, V] logits buffer small.
struct BatchLimits {
  int32_t max_batch = 0;
  int32_t max_src_len = 0;   // <= config.max_len
  int32_t max_tgt_len = 0;   // <= config.max_len
  int64_t max_src_tokens = 0;
  int64_t max_tgt_tokens = 0;
};

// Wall time per kind of op and pass, summed over the forward / backward calls made while it is
// attached (Transformer::set_profile). Detached, the default, a timed op costs one null test.
struct OpProfile {
  enum Op { kEmbedding, kLinear, kAttention, kResidualNorm, kRelu, kOutputProjection, kCrossEntropy, kOps };
  static const char* name(int op);
  double forward[kOps] = {}, backward[kOps] = {};  // seconds
};

class Transformer {
 public:
  // Throws std::invalid_argument for an invalid config or limits. Allocates every buffer.
  Transformer(const ModelConfig& config, const BatchLimits& limits);
  // Activation views point into the object's own buffer: moving keeps them valid, copying would not.
  Transformer(const Transformer&) = delete;
  Transformer& operator=(const Transformer&) = delete;
  Transformer(Transformer&&) noexcept;
  Transformer& operator=(Transformer&&) noexcept;
  ~Transformer();

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

  // Dropout on the attention weights (not in the paper; PyTorch's nn.Transformer applies it).
  // 0 by default; only used when forward runs with train=true.
  void set_attention_dropout(float p) { attention_dropout_ = p; }
  // Times every op of the following forward / backward calls into *profile; null detaches.
  void set_profile(OpProfile* profile) { profile_ = profile; }

  // Runs the model on `batch` and returns the mean label-smoothed cross-entropy per non-pad
  // target token (its gradient w.r.t. the logits, which backward() starts from, comes out of the
  // same pass). train=true applies dropout from `rng`; false is the deterministic eval path.
  // Throws std::invalid_argument when the batch exceeds the limits or holds an id >= vocab_size.
  float forward(const Batch& batch, bool train, const DropoutRng& rng);
  // Accumulates d(loss)/d(params) of the last forward into grads(). Requires forward first.
  void backward();

  // Logits of the last forward, [B, T, V] row-major (valid until the next forward).
  const float* logits() const;
  // Encoder output of the last forward, [B, S, D] (after the final norm when pre_ln).
  const float* encoder_output() const;

  // Every Linear's input and output of the last forward, for int8 calibration. Names are the
  // weight's checkpoint name without ".weight" / "_weight" ("encoder.layers.0.self_attn.in_proj",
  // "encoder.layers.0.self_attn.out_proj", "encoder.layers.0.linear1", ...). For cross
  // attention the Q part and the K/V part have different inputs, so they are listed separately
  // with names "<prefix>.multihead_attn.q" and "<prefix>.multihead_attn.kv"; the output
  // projection is listed as "embed" (input: final decoder states, output: logits).
  // Outputs are before dropout (dropout is applied by the following residual add); linear1's
  // output is after its ReLU, as a runtime that fuses the activation produces it.
  struct LinearIO {
    std::string name;
    size_t rows;  // token rows of the batch; input [rows, in], output [rows, out]
    const float* input; size_t input_numel;
    const float* output; size_t output_numel;
  };
  std::vector<LinearIO> linear_io() const;

 private:
  // Offsets (in floats) of a sublayer's parameters inside params_ and grads_ alike.
  struct AttentionParams { size_t in_w, in_b, out_w, out_b; };
  struct FeedForwardParams { size_t w1, b1, w2, b2; };
  struct NormParams { size_t w, b; };
  // Saved activations of the last forward: views into acts_ sized for the largest batch.
  struct NormActs { float* res; float* out; float* mean; float* rstd; };  // res = x + drop(f(.))
  struct AttentionActs { float* q; float* kv; float* probs; float* ctx; float* proj; };  // self: q = [n, 3D] QKV
  struct FeedForwardActs { float* hidden; float* out; };  // hidden after the ReLU (applied in place)
  // Encoder layers have sublayers {self-attention, FFN}; decoder layers {self, cross, FFN}.
  struct Layer {
    int sublayers;
    AttentionParams self_attn, cross_attn;
    FeedForwardParams ffn;
    NormParams norm[3];
    AttentionActs self_attn_acts, cross_attn_acts;
    FeedForwardActs ffn_acts;
    NormActs norm_acts[3];
  };
  // One side of the model: embedding output, layers, optional final norm (pre-LN).
  struct Stack {
    int id;  // 0 encoder, 1 decoder: distinguishes dropout sites
    float* embedded;
    std::vector<Layer> layers;
    NormParams final_norm;
    NormActs final_norm_acts;
  };

  template <typename F>
  const float* sublayer_forward(const float* x, long n, const NormParams& np, const NormActs& na, uint64_t site,
                                F&& f);
  template <typename FB>
  void sublayer_backward(float* g_in, const float* g_out, const float* x, long n, const NormParams& np,
                         const NormActs& na, uint64_t site, FB&& fb);
  const float* self_attention_forward(const float* a, long n, const AttentionParams& p, const AttentionActs& acts,
                                      int len, const uint8_t* padding, bool causal, uint64_t site);
  void self_attention_backward(float* da, const float* dy, const float* a, long n, const AttentionParams& p,
                               const AttentionActs& acts, int len, const uint8_t* padding, bool causal,
                               uint64_t site);
  const float* cross_attention_forward(const float* a, const AttentionParams& p, const AttentionActs& acts,
                                       uint64_t site);
  void cross_attention_backward(float* da, const float* dy, const float* a, const AttentionParams& p,
                                const AttentionActs& acts, uint64_t site);
  const float* feed_forward_forward(const float* a, long n, const FeedForwardParams& p, const FeedForwardActs& acts);
  void feed_forward_backward(float* da, const float* dy, const float* a, long n, const FeedForwardParams& p,
                             const FeedForwardActs& acts);
  const float* stack_forward(const Stack& stack, const int32_t* ids);
  // d(loss)/d(stack output) in g_stream_[0] on entry; accumulates the stack's parameter gradients.
  void stack_backward(const Stack& stack, const int32_t* ids);
  const float* sublayer_output(const NormActs& na) const { return config_.pre_ln ? na.res : na.out; }
  const float* stack_output(const Stack& stack) const;  // after the final norm when pre_ln
  // fn(begin, end, part) over [0, n) split in parts of at least `grain` items.
  template <typename F>
  void parallel(long n, long grain, F&& fn);
  void layer_norm(const NormActs& na, const float* x, const NormParams& np, long n);
  // attention_forward / attention_backward with the batch split across threads.
  void attention_forward_parallel(const AttentionShape& s, const AttentionActs& acts, const float* q,
                                  const float* k, const float* v);
  void attention_backward_parallel(const AttentionShape& s, const AttentionActs& acts, float* dq, float* dk,
                                   float* dv, const float* q, const float* k, const float* v);
  long rows(const Stack& stack) const { return static_cast<long>(batch_) * (stack.id ? tgt_len_ : src_len_); }
  // Masks of the last forward (inactive in eval mode) for residual / attention-weight dropout.
  DropoutMask residual_mask(uint64_t site) const;
  DropoutMask attention_mask(uint64_t site) const;
  // The profile entry of `op` in the current pass, null when no profile is attached.
  double* timer(OpProfile::Op op) const;

  ModelConfig config_;
  BatchLimits limits_;
  std::vector<TensorInfo> tensors_;
  std::vector<float> params_, grads_, acts_;
  std::vector<float> positions_;  // [max_len, D] sinusoidal table
  Stack encoder_, decoder_;
  float attention_dropout_ = 0.f;
  std::unique_ptr<rt::ThreadPool> pool_;  // the runtime's pthreadpool wrapper
  OpProfile* profile_ = nullptr;
  bool in_backward_ = false;  // which half of profile_ the ops add to

  // State of the last forward, read by backward().
  int batch_ = 0, src_len_ = 0, tgt_len_ = 0;
  bool train_ = false;
  DropoutRng rng_;
  std::vector<int32_t> src_, tgt_in_, tgt_out_;  // ids, sized for the limits
  std::vector<uint8_t> src_pad_;                 // source key padding mask
  float* logits_ = nullptr;
  float* dlogits_ = nullptr;  // d(loss)/d(logits), written by forward()
  // Backward scratch gradients.
  float* g_stream_[2] = {};
  float* g_y_ = nullptr;    // d(sublayer output)
  float* g_a_ = nullptr;    // d(sublayer input) before the pre-LN norm
  float* g_ctx_ = nullptr;  // d(attention context)
  float* g_qkv_ = nullptr;  // d(QKV) of self-attention, d(Q) of cross-attention
  float* g_kv_ = nullptr;   // d(KV) of cross-attention
  float* g_hidden_ = nullptr;  // d(FFN hidden), before and after the ReLU (in place)
  float* g_memory_ = nullptr;  // d(encoder output), accumulated over decoder layers
  float* attn_scratch_ = nullptr;  // one slice per thread
  long attn_scratch_slice_ = 0;
};

}  // namespace pmt::train
