#include "train/model.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

#include "thread_pool.h"  // runtime/src
#include "train/ops/cross_entropy.h"
#include "train/ops/dropout.h"
#include "train/ops/embedding.h"
#include "train/ops/layer_norm.h"
#include "train/ops/linear.h"
#include "train/ops/relu.h"

namespace pmt::train {

namespace {

// Dropout sites: every place a mask is drawn gets its own number, so masks never repeat within a
// step. Per stack: 0 = embeddings; 1 + 8 * layer + k = residual dropout of sublayer k; + 4 = the
// attention-weight dropout of sublayer k.
constexpr uint64_t kSitesPerStack = uint64_t{1} << 20;
uint64_t embedding_site(int stack) { return stack * kSitesPerStack; }
uint64_t residual_site(int stack, int layer, int k) { return stack * kSitesPerStack + 1 + 8 * layer + k; }
uint64_t attention_site(int stack, int layer, int k) { return residual_site(stack, layer, k) + 4; }

void zero(float* p, long n) { std::memset(p, 0, sizeof(float) * n); }
void copy(float* dst, const float* src, long n) { std::memcpy(dst, src, sizeof(float) * n); }

long round_up16(long n) { return (n + 15) / 16 * 16; }  // 64-byte aligned activation slots

// Smallest slice of an element-wise op worth a thread of its own (waking one costs microseconds).
constexpr long kGrain = 1 << 15;
// Most threads the ops are split over (bounds the per-thread partial results on the stack).
constexpr int kMaxParts = 64;

// Adds the wall time of its scope to *slot; a null slot reads no clock.
class ScopeTimer {
 public:
  explicit ScopeTimer(double* slot) : slot_(slot) {
    if (slot_) start_ = std::chrono::steady_clock::now();
  }
  ~ScopeTimer() {
    if (slot_) *slot_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopeTimer(const ScopeTimer&) = delete;
  ScopeTimer& operator=(const ScopeTimer&) = delete;

 private:
  double* slot_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

const char* OpProfile::name(int op) {
  static const char* const kNames[kOps] = {"embedding + dropout", "linear (GEMM + bias)", "attention",
                                           "residual + dropout + layer norm", "relu",
                                           "output projection (GEMM)", "softmax + cross-entropy"};
  return op >= 0 && op < kOps ? kNames[op] : "?";
}

int64_t Batch::target_tokens() const {
  return std::count_if(tgt_out.begin(), tgt_out.end(), [](int32_t id) { return id != kPadId; });
}

// Out of line: rt::ThreadPool is only declared in model.h.
Transformer::Transformer(Transformer&&) noexcept = default;
Transformer& Transformer::operator=(Transformer&&) noexcept = default;
Transformer::~Transformer() = default;

Transformer::Transformer(const ModelConfig& config, const BatchLimits& limits) : config_(config), limits_(limits) {
  if (const std::string err = config.validate(); !err.empty()) throw std::invalid_argument("model config: " + err);
  if (limits.max_batch < 1 || limits.max_src_len < 1 || limits.max_tgt_len < 1 || limits.max_src_tokens < 0 ||
      limits.max_tgt_tokens < 0)
    throw std::invalid_argument("batch limits must be positive");
  if (limits.max_src_len > config.max_len || limits.max_tgt_len > config.max_len)
    throw std::invalid_argument("batch limits exceed the model's max_len");
  const long D = config.d_model, F = config.d_ff, V = config.vocab_size, H = config.n_heads;

  // Parameters, in PyTorch's nn.Transformer state_dict order (the checkpoint order).
  size_t total = 0;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    size_t numel = 1;
    for (int64_t d : shape) numel *= static_cast<size_t>(d);
    tensors_.push_back({name, std::move(shape), total, numel});
    total += numel;
    return tensors_.back().offset;
  };
  auto add_attention = [&](const std::string& prefix) {
    AttentionParams p;
    p.in_w = add(prefix + ".in_proj_weight", {3 * D, D});
    p.in_b = add(prefix + ".in_proj_bias", {3 * D});
    p.out_w = add(prefix + ".out_proj.weight", {D, D});
    p.out_b = add(prefix + ".out_proj.bias", {D});
    return p;
  };
  auto add_norm = [&](const std::string& prefix) {
    NormParams p;
    p.w = add(prefix + ".weight", {D});
    p.b = add(prefix + ".bias", {D});
    return p;
  };
  auto add_ffn = [&](const std::string& prefix) {
    FeedForwardParams p;
    p.w1 = add(prefix + ".linear1.weight", {F, D});
    p.b1 = add(prefix + ".linear1.bias", {F});
    p.w2 = add(prefix + ".linear2.weight", {D, F});
    p.b2 = add(prefix + ".linear2.bias", {D});
    return p;
  };
  add("embed.weight", {V, D});
  encoder_.id = 0;
  encoder_.layers.resize(config.n_enc_layers);
  for (int i = 0; i < config.n_enc_layers; ++i) {
    Layer& L = encoder_.layers[i];
    const std::string prefix = "encoder.layers." + std::to_string(i);
    L.sublayers = 2;
    L.self_attn = add_attention(prefix + ".self_attn");
    L.ffn = add_ffn(prefix);
    for (int k = 0; k < 2; ++k) L.norm[k] = add_norm(prefix + ".norm" + std::to_string(k + 1));
  }
  if (config.pre_ln) encoder_.final_norm = add_norm("encoder.norm");
  decoder_.id = 1;
  decoder_.layers.resize(config.n_dec_layers);
  for (int i = 0; i < config.n_dec_layers; ++i) {
    Layer& L = decoder_.layers[i];
    const std::string prefix = "decoder.layers." + std::to_string(i);
    L.sublayers = 3;
    L.self_attn = add_attention(prefix + ".self_attn");
    L.cross_attn = add_attention(prefix + ".multihead_attn");
    L.ffn = add_ffn(prefix);
    for (int k = 0; k < 3; ++k) L.norm[k] = add_norm(prefix + ".norm" + std::to_string(k + 1));
  }
  if (config.pre_ln) decoder_.final_norm = add_norm("decoder.norm");
  params_.assign(total, 0.f);
  grads_.assign(total, 0.f);

  // Activations: first list every slot with its size, then carve them out of one buffer.
  auto bound = [](long product, int64_t tokens) { return tokens > 0 ? std::min<long>(product, tokens) : product; };
  const long ns = bound(static_cast<long>(limits.max_batch) * limits.max_src_len, limits.max_src_tokens);
  const long nt = bound(static_cast<long>(limits.max_batch) * limits.max_tgt_len, limits.max_tgt_tokens);
  const long nmax = std::max(ns, nt), S = limits.max_src_len, T = limits.max_tgt_len;
  std::vector<std::pair<float**, long>> slots;
  auto slot = [&](float*& p, long n) { slots.emplace_back(&p, n); };
  auto norm_slots = [&](NormActs& a, long n) {
    slot(a.res, n * D);
    slot(a.out, n * D);
    slot(a.mean, n);
    slot(a.rstd, n);
  };
  auto ffn_slots = [&](FeedForwardActs& a, long n) {
    slot(a.hidden, n * F);
    slot(a.out, n * D);
  };
  // Query rows times the longest key sequence bounds batch * heads * q_len * kv_len.
  auto attention_slots = [&](AttentionActs& a, long n_q, long n_kv, long kv_len, bool cross) {
    if (cross) {
      slot(a.q, n_q * D);
      slot(a.kv, n_kv * 2 * D);
    } else {
      slot(a.q, n_q * 3 * D);
      a.kv = nullptr;
    }
    slot(a.probs, H * n_q * kv_len);
    slot(a.ctx, n_q * D);
    slot(a.proj, n_q * D);
  };
  slot(encoder_.embedded, ns * D);
  for (Layer& L : encoder_.layers) {
    for (int k = 0; k < 2; ++k) norm_slots(L.norm_acts[k], ns);
    attention_slots(L.self_attn_acts, ns, ns, S, false);
    ffn_slots(L.ffn_acts, ns);
  }
  slot(decoder_.embedded, nt * D);
  for (Layer& L : decoder_.layers) {
    for (int k = 0; k < 3; ++k) norm_slots(L.norm_acts[k], nt);
    attention_slots(L.self_attn_acts, nt, nt, T, false);
    attention_slots(L.cross_attn_acts, nt, ns, S, true);
    ffn_slots(L.ffn_acts, nt);
  }
  if (config.pre_ln) {
    norm_slots(encoder_.final_norm_acts, ns);
    norm_slots(decoder_.final_norm_acts, nt);
  }
  slot(logits_, nt * V);
  slot(dlogits_, nt * V);
  for (float*& g : g_stream_) slot(g, nmax * D);
  slot(g_y_, nmax * D);
  slot(g_a_, nmax * D);
  slot(g_ctx_, nmax * D);
  slot(g_qkv_, nmax * 3 * D);
  slot(g_kv_, ns * 2 * D);
  slot(g_hidden_, nmax * F);
  slot(g_memory_, ns * D);
  pool_ = std::make_unique<rt::ThreadPool>(
      std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxParts), /*yield_workers=*/true);
  attn_scratch_slice_ = round_up16(2 * std::max({S * S, T * T, T * S}));
  slot(attn_scratch_, attn_scratch_slice_ * static_cast<long>(pool_->threads()));
  long acts_total = 0;
  for (const auto& s : slots) acts_total += round_up16(s.second);
  acts_.assign(acts_total, 0.f);
  long at = 0;
  for (const auto& s : slots) {
    *s.first = acts_.data() + at;
    at += round_up16(s.second);
  }

  positions_.resize(static_cast<size_t>(config.max_len) * D);
  sinusoidal_positions(positions_.data(), config.max_len, config.d_model);
  src_.resize(ns);
  src_pad_.resize(ns);
  tgt_in_.resize(nt);
  tgt_out_.resize(nt);
}

DropoutMask Transformer::residual_mask(uint64_t site) const {
  return train_ ? DropoutMask(config_.dropout, rng_.seed, rng_.step, site) : DropoutMask();
}

DropoutMask Transformer::attention_mask(uint64_t site) const {
  return train_ ? DropoutMask(attention_dropout_, rng_.seed, rng_.step, site) : DropoutMask();
}

double* Transformer::timer(OpProfile::Op op) const {
  if (!profile_) return nullptr;
  return (in_backward_ ? profile_->backward : profile_->forward) + op;
}

const TensorInfo* Transformer::find(const std::string& name) const {
  for (const TensorInfo& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

void Transformer::init(uint64_t seed) {
  std::mt19937_64 gen(seed);
  const float D = static_cast<float>(config_.d_model);
  for (const TensorInfo& t : tensors_) {
    float* p = params_.data() + t.offset;
    if (t.name == "embed.weight") {
      std::normal_distribution<float> normal(0.f, 1.f / std::sqrt(D));
      for (size_t i = 0; i < t.numel; ++i) p[i] = normal(gen);
    } else if (t.shape.size() == 2) {
      // Xavier-uniform per [out, in] matrix; the fused QKV projection is three D x D matrices.
      const float fan_in = static_cast<float>(t.shape[1]);
      const float fan_out = t.name.ends_with("in_proj_weight") ? fan_in : static_cast<float>(t.shape[0]);
      std::uniform_real_distribution<float> uniform(-1.f, 1.f);
      const float limit = std::sqrt(6.f / (fan_in + fan_out));
      for (size_t i = 0; i < t.numel; ++i) p[i] = limit * uniform(gen);
    } else {
      // Vectors: LayerNorm weights 1, every bias 0.
      const bool norm_weight = t.name.ends_with(".weight");
      std::fill(p, p + t.numel, norm_weight ? 1.f : 0.f);
    }
  }
}

void Transformer::zero_grad() { std::fill(grads_.begin(), grads_.end(), 0.f); }

const float* Transformer::logits() const { return logits_; }
const float* Transformer::encoder_output() const { return stack_output(encoder_); }

const float* Transformer::stack_output(const Stack& stack) const {
  if (config_.pre_ln) return stack.final_norm_acts.out;
  return sublayer_output(stack.layers.back().norm_acts[stack.layers.back().sublayers - 1]);
}

template <typename F>
void Transformer::parallel(long n, long grain, F&& fn) {
  const long parts = std::min<long>({openblas_get_num_threads(), static_cast<long>(pool_->threads()),
                                     std::max(1L, n / grain)});
  if (parts <= 1) {
    if (n > 0) fn(0L, n, 0);
    return;
  }
  // parts <= threads, so every chunk of the pool is one part.
  auto run_parts = [&](size_t, size_t begin, size_t end) {
    for (size_t p = begin; p < end; ++p) {
      const long part = static_cast<long>(p);
      fn(n * part / parts, n * (part + 1) / parts, static_cast<int>(part));
    }
  };
  pool_->for_chunks(static_cast<size_t>(parts), run_parts);
}

void Transformer::layer_norm(const NormActs& na, const float* x, const NormParams& np, long n) {
  const int D = config_.d_model;
  const float* P = params_.data();
  const ScopeTimer t(timer(OpProfile::kResidualNorm));
  parallel(n, kGrain / D, [&](long b, long e, int) {
    layer_norm_forward(na.out + b * D, na.mean + b, na.rstd + b, x + b * D, P + np.w, P + np.b, e - b, D,
                       config_.ln_eps);
  });
}

namespace {
// Batch rows of attention worth a thread: about kGrain * 8 multiply-adds.
long attention_grain(const AttentionShape& s) {
  const long per_row = static_cast<long>(s.heads) * s.q_len * s.kv_len * s.d_head;
  return std::max(1L, kGrain * 8 / per_row);
}
}  // namespace

void Transformer::attention_forward_parallel(const AttentionShape& s, const AttentionActs& acts, const float* q,
                                             const float* k, const float* v) {
  parallel(s.batch, attention_grain(s), [&](long b, long e, int part) {
    attention_forward(acts.ctx, acts.probs, q, k, v, s, static_cast<int>(b), static_cast<int>(e),
                      attn_scratch_ + part * attn_scratch_slice_);
  });
}

void Transformer::attention_backward_parallel(const AttentionShape& s, const AttentionActs& acts, float* dq,
                                              float* dk, float* dv, const float* q, const float* k, const float* v) {
  parallel(s.batch, attention_grain(s), [&](long b, long e, int part) {
    attention_backward(dq, dk, dv, g_ctx_, acts.probs, q, k, v, s, static_cast<int>(b), static_cast<int>(e),
                       attn_scratch_ + part * attn_scratch_slice_);
  });
}

namespace {
// Self-attention reads Q, K, V from one fused [n, 3D] buffer; cross-attention reads Q from [nt, D]
// and K, V from [ns, 2D].
AttentionShape attention_shape(const ModelConfig& c, int batch, int q_len, int kv_len, bool cross,
                               const uint8_t* padding, bool causal, const DropoutMask& dropout) {
  AttentionShape s;
  s.batch = batch;
  s.heads = c.n_heads;
  s.q_len = q_len;
  s.kv_len = kv_len;
  s.d_head = c.d_head();
  s.q_stride = cross ? c.d_model : 3 * c.d_model;
  s.kv_stride = cross ? 2 * c.d_model : 3 * c.d_model;
  s.key_padding = padding;
  s.causal = causal;
  s.dropout = dropout;
  return s;
}
}  // namespace

// Post-LN: x -> LN(x + drop(f(x))). Pre-LN: x -> x + drop(f(LN(x))). f returns its output [n, D].
template <typename F>
const float* Transformer::sublayer_forward(const float* x, long n, const NormParams& np, const NormActs& na,
                                           uint64_t site, F&& f) {
  const int D = config_.d_model;
  const DropoutMask mask = residual_mask(site);
  auto residual = [&](const float* y) {
    const ScopeTimer t(timer(OpProfile::kResidualNorm));
    parallel(n * D, kGrain,
             [&](long b, long e, int) { dropout_add_forward(na.res + b, x + b, y + b, e - b, mask, b); });
  };
  if (config_.pre_ln) {
    layer_norm(na, x, np, n);
    residual(f(na.out));
    return na.res;
  }
  residual(f(x));
  layer_norm(na, na.res, np, n);
  return na.out;
}

// Writes d(loss)/d(x) to g_in from g_out = d(loss)/d(sublayer output). fb(da, dy, a) is the inner
// function's backward: it accumulates d(loss)/d(a) into da from dy = d(loss)/d(f(a)).
template <typename FB>
void Transformer::sublayer_backward(float* g_in, const float* g_out, const float* x, long n, const NormParams& np,
                                    const NormActs& na, uint64_t site, FB&& fb) {
  const int D = config_.d_model;
  const long nd = n * D;
  const float* P = params_.data();
  float* G = grads_.data();
  const DropoutMask mask = residual_mask(site);
  if (config_.pre_ln) {
    {
      const ScopeTimer t(timer(OpProfile::kResidualNorm));
      copy(g_in, g_out, nd);  // the residual path
      parallel(nd, kGrain, [&](long b, long e, int) { dropout_forward(g_y_ + b, g_out + b, e - b, mask, b); });
      zero(g_a_, nd);
    }
    fb(g_a_, g_y_, na.out);
    const ScopeTimer t(timer(OpProfile::kResidualNorm));
    layer_norm_backward(g_in, G + np.w, G + np.b, g_a_, x, na.mean, na.rstd, P + np.w, n, D);
    return;
  }
  {
    const ScopeTimer t(timer(OpProfile::kResidualNorm));
    zero(g_y_, nd);
    layer_norm_backward(g_y_, G + np.w, G + np.b, g_out, na.res, na.mean, na.rstd, P + np.w, n, D);
    copy(g_in, g_y_, nd);  // the residual path
    // Through the dropout, in place.
    parallel(nd, kGrain, [&](long b, long e, int) { dropout_forward(g_y_ + b, g_y_ + b, e - b, mask, b); });
  }
  fb(g_in, g_y_, x);
}

const float* Transformer::self_attention_forward(const float* a, long n, const AttentionParams& p,
                                                 const AttentionActs& acts, int len, const uint8_t* padding,
                                                 bool causal, uint64_t site) {
  const int D = config_.d_model;
  const float* P = params_.data();
  {
    const ScopeTimer t(timer(OpProfile::kLinear));
    linear_forward(acts.q, a, P + p.in_w, P + p.in_b, n, D, 3 * D);
  }
  {
    const ScopeTimer t(timer(OpProfile::kAttention));
    const AttentionShape s = attention_shape(config_, batch_, len, len, false, padding, causal, attention_mask(site));
    attention_forward_parallel(s, acts, acts.q, acts.q + D, acts.q + 2 * D);
  }
  const ScopeTimer t(timer(OpProfile::kLinear));
  linear_forward(acts.proj, acts.ctx, P + p.out_w, P + p.out_b, n, D, D);
  return acts.proj;
}

void Transformer::self_attention_backward(float* da, const float* dy, const float* a, long n,
                                          const AttentionParams& p, const AttentionActs& acts, int len,
                                          const uint8_t* padding, bool causal, uint64_t site) {
  const int D = config_.d_model;
  const float* P = params_.data();
  float* G = grads_.data();
  {
    const ScopeTimer t(timer(OpProfile::kLinear));
    linear_backward(g_ctx_, InputGrad::kWrite, G + p.out_w, G + p.out_b, dy, acts.ctx, P + p.out_w, n, D, D);
  }
  {
    const ScopeTimer t(timer(OpProfile::kAttention));
    const AttentionShape s = attention_shape(config_, batch_, len, len, false, padding, causal, attention_mask(site));
    attention_backward_parallel(s, acts, g_qkv_, g_qkv_ + D, g_qkv_ + 2 * D, acts.q, acts.q + D, acts.q + 2 * D);
  }
  const ScopeTimer t(timer(OpProfile::kLinear));
  linear_backward(da, InputGrad::kAccumulate, G + p.in_w, G + p.in_b, g_qkv_, a, P + p.in_w, n, D, 3 * D);
}

// Q from the decoder stream a [B*T, D]; K and V from the encoder output [B*S, D] with the in_proj
// rows D..3D-1.
const float* Transformer::cross_attention_forward(const float* a, const AttentionParams& p,
                                                  const AttentionActs& acts, uint64_t site) {
  const int D = config_.d_model;
  const long nt = static_cast<long>(batch_) * tgt_len_, ns = static_cast<long>(batch_) * src_len_;
  const float* P = params_.data();
  {
    const ScopeTimer t(timer(OpProfile::kLinear));
    linear_forward(acts.q, a, P + p.in_w, P + p.in_b, nt, D, D);
    linear_forward(acts.kv, stack_output(encoder_), P + p.in_w + D * D, P + p.in_b + D, ns, D, 2 * D);
  }
  {
    const ScopeTimer t(timer(OpProfile::kAttention));
    const AttentionShape s =
        attention_shape(config_, batch_, tgt_len_, src_len_, true, src_pad_.data(), false, attention_mask(site));
    attention_forward_parallel(s, acts, acts.q, acts.kv, acts.kv + D);
  }
  const ScopeTimer t(timer(OpProfile::kLinear));
  linear_forward(acts.proj, acts.ctx, P + p.out_w, P + p.out_b, nt, D, D);
  return acts.proj;
}

void Transformer::cross_attention_backward(float* da, const float* dy, const float* a, const AttentionParams& p,
                                           const AttentionActs& acts, uint64_t site) {
  const int D = config_.d_model;
  const long nt = static_cast<long>(batch_) * tgt_len_, ns = static_cast<long>(batch_) * src_len_;
  const float* P = params_.data();
  float* G = grads_.data();
  {
    const ScopeTimer t(timer(OpProfile::kLinear));
    linear_backward(g_ctx_, InputGrad::kWrite, G + p.out_w, G + p.out_b, dy, acts.ctx, P + p.out_w, nt, D, D);
  }
  {
    const ScopeTimer t(timer(OpProfile::kAttention));
    const AttentionShape s =
        attention_shape(config_, batch_, tgt_len_, src_len_, true, src_pad_.data(), false, attention_mask(site));
    attention_backward_parallel(s, acts, g_qkv_, g_kv_, g_kv_ + D, acts.q, acts.kv, acts.kv + D);
  }
  const ScopeTimer t(timer(OpProfile::kLinear));
  linear_backward(da, InputGrad::kAccumulate, G + p.in_w, G + p.in_b, g_qkv_, a, P + p.in_w, nt, D, D);
  linear_backward(g_memory_, InputGrad::kAccumulate, G + p.in_w + D * D, G + p.in_b + D, g_kv_,
                  stack_output(encoder_), P + p.in_w + D * D, ns, D, 2 * D);
}

const float* Transformer::feed_forward_forward(const float* a, long n, const FeedForwardParams& p,
                                               const FeedForwardActs& acts) {
  const int D = config_.d_model, F = config_.d_ff;
  const float* P = params_.data();
  {
    const ScopeTimer t(timer(OpProfile::kLinear));
    linear_forward(acts.hidden, a, P + p.w1, P + p.b1, n, D, F);
  }
  {
    const ScopeTimer t(timer(OpProfile::kRelu));
    parallel(n * F, kGrain, [&](long b, long e, int) { relu_forward(acts.hidden + b, acts.hidden + b, e - b); });
  }
  const ScopeTimer t(timer(OpProfile::kLinear));
  linear_forward(acts.out, acts.hidden, P + p.w2, P + p.b2, n, F, D);
  return acts.out;
}

void Transformer::feed_forward_backward(float* da, const float* dy, const float* a, long n,
                                        const FeedForwardParams& p, const FeedForwardActs& acts) {
  const int D = config_.d_model, F = config_.d_ff;
  const float* P = params_.data();
  float* G = grads_.data();
  {
    const ScopeTimer t(timer(OpProfile::kLinear));
    linear_backward(g_hidden_, InputGrad::kWrite, G + p.w2, G + p.b2, dy, acts.hidden, P + p.w2, n, F, D);
  }
  {
    const ScopeTimer t(timer(OpProfile::kRelu));
    parallel(n * F, kGrain, [&](long b, long e, int) { relu_backward(g_hidden_ + b, acts.hidden + b, e - b); });
  }
  const ScopeTimer t(timer(OpProfile::kLinear));
  linear_backward(da, InputGrad::kAccumulate, G + p.w1, G + p.b1, g_hidden_, a, P + p.w1, n, D, F);
}

const float* Transformer::stack_forward(const Stack& stack, const int32_t* ids) {
  const int D = config_.d_model;
  const int len = stack.id ? tgt_len_ : src_len_;
  const long n = rows(stack);
  const bool decoder = stack.id == 1;
  // Decoder self-attention is causal only: target pads come last, so no real query sees one.
  const uint8_t* padding = decoder ? nullptr : src_pad_.data();
  const float* P = params_.data();
  {
    const ScopeTimer t(timer(OpProfile::kEmbedding));
    embedding_forward(stack.embedded, ids, batch_, len, P + tensors_[0].offset, positions_.data(), D,
                      std::sqrt(static_cast<float>(D)));
    const DropoutMask mask = residual_mask(embedding_site(stack.id));
    parallel(n * D, kGrain,
             [&](long b, long e, int) { dropout_forward(stack.embedded + b, stack.embedded + b, e - b, mask, b); });
  }
  const float* x = stack.embedded;
  for (int l = 0; l < static_cast<int>(stack.layers.size()); ++l) {
    const Layer& L = stack.layers[l];
    int k = 0;
    x = sublayer_forward(x, n, L.norm[k], L.norm_acts[k], residual_site(stack.id, l, k), [&](const float* a) {
      return self_attention_forward(a, n, L.self_attn, L.self_attn_acts, len, padding, decoder,
                                    attention_site(stack.id, l, 0));
    });
    ++k;
    if (decoder) {
      x = sublayer_forward(x, n, L.norm[k], L.norm_acts[k], residual_site(stack.id, l, k), [&](const float* a) {
        return cross_attention_forward(a, L.cross_attn, L.cross_attn_acts, attention_site(stack.id, l, 1));
      });
      ++k;
    }
    x = sublayer_forward(x, n, L.norm[k], L.norm_acts[k], residual_site(stack.id, l, k),
                         [&](const float* a) { return feed_forward_forward(a, n, L.ffn, L.ffn_acts); });
  }
  if (config_.pre_ln) {
    layer_norm(stack.final_norm_acts, x, stack.final_norm, n);
    x = stack.final_norm_acts.out;
  }
  return x;
}

void Transformer::stack_backward(const Stack& stack, const int32_t* ids) {
  const int D = config_.d_model;
  const int len = stack.id ? tgt_len_ : src_len_;
  const long n = rows(stack);
  const bool decoder = stack.id == 1;
  // Decoder self-attention is causal only: target pads come last, so no real query sees one.
  const uint8_t* padding = decoder ? nullptr : src_pad_.data();
  const float* P = params_.data();
  float* G = grads_.data();
  float* cur = g_stream_[0];
  float* next = g_stream_[1];
  const int layers = static_cast<int>(stack.layers.size());
  if (config_.pre_ln) {
    const ScopeTimer t(timer(OpProfile::kResidualNorm));
    const NormActs& na = stack.final_norm_acts;
    const NormActs& last = stack.layers.back().norm_acts[stack.layers.back().sublayers - 1];
    zero(next, n * D);
    layer_norm_backward(next, G + stack.final_norm.w, G + stack.final_norm.b, cur, last.res, na.mean, na.rstd,
                        P + stack.final_norm.w, n, D);
    std::swap(cur, next);
  }
  for (int l = layers - 1; l >= 0; --l) {
    const Layer& L = stack.layers[l];
    for (int k = L.sublayers - 1; k >= 0; --k) {
      const float* x = k > 0 ? sublayer_output(L.norm_acts[k - 1])
                       : l > 0 ? sublayer_output(stack.layers[l - 1].norm_acts[stack.layers[l - 1].sublayers - 1])
                               : stack.embedded;
      auto fb = [&](float* da, const float* dy, const float* a) {
        if (k == L.sublayers - 1) {
          feed_forward_backward(da, dy, a, n, L.ffn, L.ffn_acts);
        } else if (k == 0) {
          self_attention_backward(da, dy, a, n, L.self_attn, L.self_attn_acts, len, padding, decoder,
                                  attention_site(stack.id, l, 0));
        } else {
          cross_attention_backward(da, dy, a, L.cross_attn, L.cross_attn_acts, attention_site(stack.id, l, 1));
        }
      };
      sublayer_backward(next, cur, x, n, L.norm[k], L.norm_acts[k], residual_site(stack.id, l, k), fb);
      std::swap(cur, next);
    }
  }
  const ScopeTimer t(timer(OpProfile::kEmbedding));
  const DropoutMask mask = residual_mask(embedding_site(stack.id));
  parallel(n * D, kGrain, [&](long b, long e, int) { dropout_forward(cur + b, cur + b, e - b, mask, b); });
  embedding_backward(G + tensors_[0].offset, cur, ids, n, D, std::sqrt(static_cast<float>(D)));
}

float Transformer::forward(const Batch& batch, bool train, const DropoutRng& rng) {
  const long ns = static_cast<long>(batch.batch) * batch.src_len, nt = static_cast<long>(batch.batch) * batch.tgt_len;
  if (batch.batch < 1 || batch.src_len < 1 || batch.tgt_len < 1 || batch.batch > limits_.max_batch ||
      batch.src_len > limits_.max_src_len || batch.tgt_len > limits_.max_tgt_len ||
      ns > static_cast<long>(src_.size()) || nt > static_cast<long>(tgt_in_.size()))
    throw std::invalid_argument("batch shape exceeds the model's batch limits");
  if (static_cast<long>(batch.src.size()) != ns || static_cast<long>(batch.tgt_in.size()) != nt ||
      static_cast<long>(batch.tgt_out.size()) != nt)
    throw std::invalid_argument("batch arrays do not match its shape");
  const int32_t V = config_.vocab_size;
  auto in_vocab = [V](int32_t id) { return id >= 0 && id < V; };
  if (!std::all_of(batch.src.begin(), batch.src.end(), in_vocab) ||
      !std::all_of(batch.tgt_in.begin(), batch.tgt_in.end(), in_vocab) ||
      !std::all_of(batch.tgt_out.begin(), batch.tgt_out.end(), in_vocab))
    throw std::invalid_argument("batch holds a token id outside the vocabulary");

  batch_ = batch.batch;
  src_len_ = batch.src_len;
  tgt_len_ = batch.tgt_len;
  train_ = train;
  rng_ = rng;
  std::copy(batch.src.begin(), batch.src.end(), src_.begin());
  std::copy(batch.tgt_in.begin(), batch.tgt_in.end(), tgt_in_.begin());
  std::copy(batch.tgt_out.begin(), batch.tgt_out.end(), tgt_out_.begin());
  for (long i = 0; i < ns; ++i) src_pad_[i] = src_[i] == config_.pad_id;
  in_backward_ = false;

  stack_forward(encoder_, src_.data());
  const float* h = stack_forward(decoder_, tgt_in_.data());
  {
    const ScopeTimer t(timer(OpProfile::kOutputProjection));
    linear_forward(logits_, h, params_.data() + tensors_[0].offset, nullptr, nt, config_.d_model, V);
  }
  const ScopeTimer t(timer(OpProfile::kCrossEntropy));
  // The loss gradient comes out of the same pass (backward() starts from it), which needs the
  // number of counted tokens up front.
  const long tokens =
      std::count_if(tgt_out_.begin(), tgt_out_.begin() + nt, [&](int32_t id) { return id != config_.pad_id; });
  const float row_weight = tokens ? 1.f / static_cast<float>(tokens) : 0.f;
  // Rows split across threads; the parts' loss sums are added up in part order.
  double part_loss[kMaxParts] = {};
  parallel(nt, std::max(1L, kGrain / V), [&](long b, long e, int part) {
    part_loss[part] = cross_entropy_forward_backward(dlogits_ + b * V, logits_ + b * V, tgt_out_.data() + b, e - b, V,
                                                     config_.label_smoothing, config_.pad_id, row_weight);
  });
  double loss = 0.0;
  for (double part : part_loss) loss += part;
  return tokens ? static_cast<float>(loss / static_cast<double>(tokens)) : 0.f;
}

void Transformer::backward() {
  if (batch_ == 0) throw std::logic_error("Transformer::backward called before forward");
  const int D = config_.d_model, V = config_.vocab_size;
  const long nt = rows(decoder_), ns = rows(encoder_);
  in_backward_ = true;
  {
    const ScopeTimer t(timer(OpProfile::kOutputProjection));
    // logits = h E^T: a Linear with the embedding as weight and no bias.
    linear_backward(g_stream_[0], InputGrad::kWrite, grads_.data() + tensors_[0].offset, nullptr, dlogits_,
                    stack_output(decoder_), params_.data() + tensors_[0].offset, nt, D, V);
  }
  zero(g_memory_, ns * D);
  stack_backward(decoder_, tgt_in_.data());
  copy(g_stream_[0], g_memory_, ns * D);
  stack_backward(encoder_, src_.data());
}

std::vector<Transformer::LinearIO> Transformer::linear_io() const {
  std::vector<LinearIO> out;
  if (batch_ == 0) return out;
  const long D = config_.d_model, F = config_.d_ff;
  auto add = [&](std::string name, long rows, const float* in, long in_numel, const float* o, long out_numel) {
    out.push_back({std::move(name), static_cast<size_t>(rows), in, static_cast<size_t>(in_numel), o,
                   static_cast<size_t>(out_numel)});
  };
  for (const Stack* stack : {&encoder_, &decoder_}) {
    const long n = rows(*stack), ns = rows(encoder_);
    const char* side = stack->id ? "decoder" : "encoder";
    for (size_t l = 0; l < stack->layers.size(); ++l) {
      const Layer& L = stack->layers[l];
      const std::string prefix = std::string(side) + ".layers." + std::to_string(l);
      const float* x = l > 0 ? sublayer_output(stack->layers[l - 1].norm_acts[stack->layers[l - 1].sublayers - 1])
                             : stack->embedded;
      for (int k = 0; k < L.sublayers; ++k) {
        const float* a = config_.pre_ln ? L.norm_acts[k].out : x;
        if (k == L.sublayers - 1) {
          add(prefix + ".linear1", n, a, n * D, L.ffn_acts.hidden, n * F);
          add(prefix + ".linear2", n, L.ffn_acts.hidden, n * F, L.ffn_acts.out, n * D);
        } else if (k == 0) {
          const AttentionActs& s = L.self_attn_acts;
          add(prefix + ".self_attn.in_proj", n, a, n * D, s.q, n * 3 * D);
          add(prefix + ".self_attn.out_proj", n, s.ctx, n * D, s.proj, n * D);
        } else {
          const AttentionActs& c = L.cross_attn_acts;
          add(prefix + ".multihead_attn.q", n, a, n * D, c.q, n * D);
          add(prefix + ".multihead_attn.kv", ns, stack_output(encoder_), ns * D, c.kv, ns * 2 * D);
          add(prefix + ".multihead_attn.out_proj", n, c.ctx, n * D, c.proj, n * D);
        }
        x = sublayer_output(L.norm_acts[k]);
      }
    }
  }
  add("embed", rows(decoder_), stack_output(decoder_), rows(decoder_) * D, logits_, rows(decoder_) * config_.vocab_size);
  return out;
}

}  // namespace pmt::train
