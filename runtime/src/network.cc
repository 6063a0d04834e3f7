#include "network.h"

#include <algorithm>
#include <cstring>

#include "kernels/attention.h"
#include "kernels/embedding.h"
#include "kernels/layer_norm.h"
#include "kernels/quantize.h"
#include "kernels/top_k.h"
#include "mapped_pages.h"

namespace pmt::rt {
namespace {

// x <- x + y over n floats: the pre-LN residual connection.
void add_in_place(float* __restrict x, const float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] += y[i];
}

}  // namespace

std::string Network::create_linear(const std::string& weight, const std::string& bias,
                                   const Linear::Options& options, Linear* out) {
  const TensorView* w = file_->find(weight);
  if (w == nullptr) return "model file lacks " + weight;
  const TensorView* b = nullptr;
  if (!bias.empty() && (b = file_->find(bias)) == nullptr) return "model file lacks " + bias;
  std::string e = out->create(*w, b != nullptr ? b->f32() : nullptr, options);
  if (e.empty() && release_weights_) release_mapped_pages(w->data, w->bytes);
  return e;
}

std::string Network::create_attention(const std::string& prefix, Linear* in_proj, Linear* out_proj) {
  std::string e = create_linear(prefix + ".in_proj_weight", prefix + ".in_proj_bias", {}, in_proj);
  if (e.empty()) e = create_linear(prefix + ".out_proj.weight", prefix + ".out_proj.bias", {}, out_proj);
  return e;
}

std::string Network::create_ffn(const std::string& prefix, FeedForward* out) {
  std::string e = create_linear(prefix + ".linear1.weight", prefix + ".linear1.bias", {.relu = true}, &out->linear1);
  if (!e.empty()) return e;
  // With both layers in int8 and linear1's output on one scale, linear2 reads linear1's int8
  // output as is (see feed_forward): the same tensor, so it must be quantized the way linear1
  // left it.
  const TensorView* w2 = file_->find(prefix + ".linear2.weight");
  Linear::Options options;
  if (out->linear1.chains_int8() && w2 != nullptr && w2->dtype == DType::I8)
    options.input_quant = &out->linear1.output_quant();
  return create_linear(prefix + ".linear2.weight", prefix + ".linear2.bias", options, &out->linear2);
}

std::string Network::find_norm(const std::string& name, Norm* out) const {
  const TensorView* g = file_->find(name + ".weight");
  const TensorView* b = file_->find(name + ".bias");
  if (g == nullptr || b == nullptr) return "model file lacks " + name;
  *out = {g->f32(), b->f32()};
  return {};
}

std::string Network::plan(const ModelFile& file, const NetworkLimits& limits, const ThreadPool* pool,
                          bool release_weights) {
  file_ = &file;
  release_weights_ = release_weights;
  pool_ = pool;
  config_ = file.config();
  limits_ = limits;
  shortlist_ = file.shortlist();
  embed_ = file.find("embed.weight");
  if (embed_ == nullptr) return "model file lacks embed.weight";
  bf16_kv_ = embed_->dtype == DType::I8;
  // int8 logits pass through one static output scale: a step of about 1/250 of their range,
  // enough to find the candidates but too coarse to rank close ones. So the best candidates of
  // each row are recomputed exactly (float activations against the int8 rows). Beam search
  // looks at 2 * beam candidates per hypothesis: twice that, and at least 32.
  // A model with a shortlist scores every logit from the embedding table it holds anyway (its
  // candidates, or all of them when a call turns the shortlist off): a packed output layer
  // would hold the 2 MB table a second time for a path that is not the default.
  const bool output_layer = shortlist_ == nullptr;
  refine_count_ = output_layer && embed_->dtype == DType::I8
                      ? std::min<size_t>(config_.vocab_size, std::max<size_t>(32, 4 * limits.max_beam))
                      : 0;
  if (output_layer) jobs_.push_back([this] { return create_linear("embed.weight", "", {}, &output_); });

  std::string e;
  encoder_.resize(config_.n_enc_layers);
  for (int i = 0; i < config_.n_enc_layers && e.empty(); ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    EncoderLayer& l = encoder_[i];
    jobs_.push_back([this, p, &l] { return create_attention(p + ".self_attn", &l.in_proj, &l.out_proj); });
    jobs_.push_back([this, p, &l] { return create_ffn(p, &l.ffn); });
    e = find_norm(p + ".norm1", &l.norm1);
    if (e.empty()) e = find_norm(p + ".norm2", &l.norm2);
  }
  decoder_.resize(config_.n_dec_layers);
  for (int i = 0; i < config_.n_dec_layers && e.empty(); ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    const std::string x = p + ".multihead_attn";
    DecoderLayer& l = decoder_[i];
    jobs_.push_back([this, p, &l] { return create_attention(p + ".self_attn", &l.in_proj, &l.out_proj); });
    jobs_.push_back([this, x, &l] { return create_linear(x + ".q_proj.weight", x + ".q_proj.bias", {}, &l.q_proj); });
    jobs_.push_back(
        [this, x, &l] { return create_linear(x + ".kv_proj.weight", x + ".kv_proj.bias", {}, &l.kv_proj); });
    jobs_.push_back(
        [this, x, &l] { return create_linear(x + ".out_proj.weight", x + ".out_proj.bias", {}, &l.cross_out); });
    jobs_.push_back([this, p, &l] { return create_ffn(p, &l.ffn); });
    e = find_norm(p + ".norm1", &l.norm1);
    if (e.empty()) e = find_norm(p + ".norm2", &l.norm2);
    if (e.empty()) e = find_norm(p + ".norm3", &l.norm3);
  }
  if (e.empty() && config_.pre_ln) e = find_norm("encoder.norm", &encoder_norm_);
  if (e.empty() && config_.pre_ln) e = find_norm("decoder.norm", &decoder_norm_);
  if (!e.empty()) jobs_.clear();  // nothing to create for a file that fails anyway
  job_errors_.resize(jobs_.size());
  return e;
}

void Network::create_operators() {
  for (size_t i = next_job_++; i < jobs_.size(); i = next_job_++) job_errors_[i] = jobs_[i]();
}

std::string Network::creation_error() const {
  for (const std::string& e : job_errors_)
    if (!e.empty()) return e;
  return {};
}

std::string Network::create(const ModelFile& file, const NetworkLimits& limits, const ThreadPool* pool,
                            bool release_weights) {
  if (std::string e = plan(file, limits, pool, release_weights); !e.empty()) return e;
  create_operators();
  return creation_error();
}

void Network::bind(ArenaLayout& arena) {
  const size_t D = config_.d_model, F = config_.d_ff, V = config_.vocab_size;
  const size_t src_rows = static_cast<size_t>(limits_.max_batch) * limits_.max_src_len;
  const size_t max_len = std::max(limits_.max_src_len, limits_.max_tgt_len);
  encoder_rows_ = std::min(src_rows, std::max<size_t>(limits_.max_src_len, kEncoderRows));
  max_rows_ = std::max(encoder_rows_, slots());
  x_ = arena.take<float>(max_rows_ * D);
  normed_ = arena.take<float>(max_rows_ * D);
  qkv_ = arena.take<float>(max_rows_ * 3 * D);
  attn_ = arena.take<float>(max_rows_ * D);
  proj_ = arena.take<float>(max_rows_ * D);
  hidden_ = arena.take<float>(max_rows_ * F);
  logits_ = arena.take<float>(slots() * V);
  xq_ = arena.take<int8_t>(max_rows_ * std::max(D, F));
  yq_ = arena.take<int8_t>(std::max(max_rows_ * std::max(3 * D, F), slots() * V));
  hq_ = arena.take<int8_t>(max_rows_ * F);
  pos_table_ = arena.take<float>(max_len * D);
  attn_scratch_len_ = max_len + config_.d_head();  // attention_bf16's split query too
  attn_scratch_ = arena.take<float>(pool_->threads() * attn_scratch_len_);
  refine_row_ = arena.take<float>(D);
  refine_val_ = arena.take<float>(refine_count_);
  refine_idx_ = arena.take<int32_t>(refine_count_);
  int32_t* frequent = nullptr;
  uint32_t* offsets = nullptr;
  uint16_t* targets = nullptr;
  if (shortlist_ != nullptr) {
    cand_ids_ = arena.take<int32_t>(static_cast<size_t>(limits_.max_batch) * V);
    cand_begin_ = arena.take<int32_t>(limits_.max_batch);
    cand_count_ = arena.take<int32_t>(limits_.max_batch);
    seen_ = arena.take<bool>(V);
    frequent = arena.take<int32_t>(shortlist_->frequent.size());
    offsets = arena.take<uint32_t>(shortlist_->offsets.size());
    targets = arena.take<uint16_t>(shortlist_->targets.size());
  }
  src_offset_ = arena.take<int32_t>(limits_.max_batch);
  src_len_ = arena.take<int32_t>(limits_.max_batch);
  for (DecoderLayer& l : decoder_) {
    l.self_kv = arena.take<std::byte>(slots() * limits_.max_tgt_len * 2 * D * kv_bytes());
    l.cross_kv = arena.take<std::byte>(src_rows * 2 * D * kv_bytes());
  }
  // The norms move into the arena: read from the file, each would keep the file pages around
  // it resident (the kernel maps neighbouring pages on every fault).
  std::vector<Norm*> norms;
  for (EncoderLayer& l : encoder_) norms.insert(norms.end(), {&l.norm1, &l.norm2});
  for (DecoderLayer& l : decoder_) norms.insert(norms.end(), {&l.norm1, &l.norm2, &l.norm3});
  if (config_.pre_ln) norms.insert(norms.end(), {&encoder_norm_, &decoder_norm_});
  float* norm_params = arena.take<float>(norms.size() * 2 * D);
  // The embedding table, read row by row for every token and every refined logit, is copied
  // in too. Mapped, each row read would fault in the whole page-cache folio around it, which
  // recent kernels make as large as megabytes (measured: 3.6 MB of the small int8 file resident
  // after translating one word, for a 2 MB table). For the same reason the mapping is given
  // back after each piece copied, so that the file's pages never add to the copies.
  std::byte* rows = arena.take<std::byte>(embed_->bytes);
  float* scales = embed_->scales != nullptr ? arena.take<float>(V) : nullptr;
  if (norm_params == nullptr) return;
  populate_pages(rows, embed_->bytes);
  auto release_file = [&] {
    if (release_weights_) release_mapped_pages(file_->data(), file_->size());
  };
  for (Norm* n : norms) {
    *n = {std::copy_n(n->gamma, D, norm_params) - D, std::copy_n(n->beta, D, norm_params + D) - D};
    norm_params += 2 * D;
  }
  if (scales != nullptr) embed_scales_ = std::copy_n(embed_->scales, V, scales) - V;
  if (shortlist_ != nullptr) {
    const ShortlistView& list = *shortlist_;
    arena_shortlist_ = {{frequent, std::copy(list.frequent.begin(), list.frequent.end(), frequent)},
                        {offsets, std::copy(list.offsets.begin(), list.offsets.end(), offsets)},
                        {targets, std::copy(list.targets.begin(), list.targets.end(), targets)}};
    std::fill_n(seen_, V, false);
  }
  release_file();
  constexpr size_t kSlice = 256 * 1024;
  for (size_t at = 0; at < embed_->bytes; at += kSlice) {
    std::memcpy(rows + at, static_cast<const std::byte*>(embed_->data) + at, std::min(kSlice, embed_->bytes - at));
    release_file();
  }
  embed_rows_ = rows;
  kernels::sinusoid_table(pos_table_, max_len, D);
}

void Network::embed(const int32_t* ids, size_t n, size_t pos0, float* y) const {
  const size_t D = config_.d_model;
  if (embed_->dtype == DType::I8)
    kernels::embed_qc8(static_cast<const int8_t*>(embed_rows_), embed_scales_, ids, n, D, pos_table_, pos0, y);
  else
    kernels::embed_f32(static_cast<const float*>(embed_rows_), ids, n, D, pos_table_, pos0, y);
}

pthreadpool_t Network::pool_for(const Linear& op, size_t rows) const {
  // An int8 multiply-add costs about a quarter of an fp32 one.
  const size_t work = rows * op.in() * op.out() / (op.quantized() ? 4 : 1);
  return work >= kMinParallelWork ? pool_->get() : nullptr;
}

void Network::linear(const Linear& op, size_t rows, const float* x, float* y) {
  op.run(rows, x, y, xq_, yq_, pool_for(op, rows));
}

void Network::feed_forward(const FeedForward& ffn, size_t rows, const float* x, float* y) {
  if (ffn.linear1.chains_int8() && ffn.linear2.quantized()) {
    ffn.linear1.quantize_input(rows, x, xq_);
    ffn.linear1.run_q(rows, xq_, hq_, pool_for(ffn.linear1, rows));
    ffn.linear2.run_q(rows, hq_, yq_, pool_for(ffn.linear2, rows));
    ffn.linear2.dequantize_output(rows, yq_, y);
    return;
  }
  linear(ffn.linear1, rows, x, hidden_);
  linear(ffn.linear2, rows, hidden_, y);
}

void Network::layer_norm(const Norm& norm, size_t rows, const float* x, const float* residual, float* y) const {
  kernels::add_layer_norm(x, residual, norm.gamma, norm.beta, y, rows, config_.d_model, config_.ln_eps);
}

template <class F>
void Network::residual(const Norm& norm, size_t rows, F&& f) {
  const size_t D = config_.d_model;
  if (config_.pre_ln) {
    layer_norm(norm, rows, x_, nullptr, normed_);
    f(normed_, proj_);
    add_in_place(x_, proj_, rows * D);
  } else {
    f(x_, proj_);
    layer_norm(norm, rows, proj_, x_, x_);
  }
}

void Network::select_columns(std::span<const std::span<const int32_t>> sources, bool shortlist) {
  const size_t V = config_.vocab_size;
  for (size_t b = 0; b < sources.size(); ++b) {
    int32_t* ids = cand_ids_ + b * V;
    cand_begin_[b] = static_cast<int32_t>(b * V);
    if (!shortlist) {
      for (size_t t = 0; t < V; ++t) ids[t] = static_cast<int32_t>(t);
      cand_count_[b] = static_cast<int32_t>(V);
      continue;
    }
    size_t n = 0;
    auto add = [&](int32_t token) {
      if (seen_[token]) return;
      seen_[token] = true;
      ids[n++] = token;
    };
    for (int32_t token : arena_shortlist_.frequent) add(token);
    add(config_.eos_id);
    for (int32_t s : sources[b]) {
      add(s);  // the vocabulary is shared: names, numbers and URLs are copied through
      for (uint16_t t : arena_shortlist_.of(s)) add(t);
    }
    std::sort(ids, ids + n);
    for (size_t c = 0; c < n; ++c) seen_[ids[c]] = false;
    cand_count_[b] = static_cast<int32_t>(n);
  }
}

int32_t Network::token_column(size_t b, int32_t token) const {
  if (!use_columns_) return token;
  const int32_t* begin = cand_ids_ + cand_begin_[b];
  const int32_t* end = begin + cand_count_[b];
  const int32_t* at = std::lower_bound(begin, end, token);
  return at != end && *at == token ? static_cast<int32_t>(at - begin) : -1;
}

void Network::encode(std::span<const std::span<const int32_t>> sources, bool shortlist) {
  use_columns_ = shortlist_ != nullptr;
  if (use_columns_) select_columns(sources, shortlist);
  // The sentences go through the encoder in groups of at most encoder_rows_ rows, each group's
  // keys and values landing at its sentences' place in the cross-attention caches.
  const size_t count = sources.size();
  size_t rows = 0;
  for (size_t b = 0; b < count; ++b) {
    src_offset_[b] = static_cast<int32_t>(rows);
    src_len_[b] = static_cast<int32_t>(sources[b].size());
    rows += sources[b].size();
  }
  for (size_t first = 0; first < count;) {
    size_t last = first + 1;
    while (last < count && static_cast<size_t>(src_offset_[last] + src_len_[last] - src_offset_[first]) <= encoder_rows_)
      ++last;
    encode_group(sources, first, last);
    first = last;
  }
}

void Network::encode_group(std::span<const std::span<const int32_t>> sources, size_t first, size_t last) {
  const size_t D = config_.d_model, H = config_.n_heads, dh = config_.d_head();
  const size_t base = src_offset_[first];
  const size_t rows = src_offset_[last - 1] + src_len_[last - 1] - base;
  for (size_t b = first; b < last; ++b) embed(sources[b].data(), sources[b].size(), 0, x_ + (src_offset_[b] - base) * D);

  // Attention over a chunk of query rows, per sentence with its own keys.
  auto attend = [&](size_t chunk, size_t begin, size_t end) {
    float* scratch = attn_scratch_ + chunk * attn_scratch_len_;
    for (size_t b = first; b < last; ++b) {
      const size_t off = src_offset_[b] - base, len = src_len_[b];
      const size_t lo = std::max(begin, off), hi = std::min(end, off + len);
      if (lo >= hi) continue;
      const float* sentence = qkv_ + off * 3 * D;
      kernels::attention(qkv_ + lo * 3 * D, 3 * D, sentence + D, sentence + 2 * D, 3 * D, attn_ + lo * D, D,
                         hi - lo, len, H, dh, false, 0, scratch);
    }
  };
  for (const EncoderLayer& l : encoder_) {
    residual(l.norm1, rows, [&](const float* in, float* out) {
      linear(l.in_proj, rows, in, qkv_);
      pool_->for_chunks(rows, attend);
      linear(l.out_proj, rows, attn_, out);
    });
    residual(l.norm2, rows, [&](const float* in, float* out) { feed_forward(l.ffn, rows, in, out); });
  }
  const float* memory = x_;
  if (config_.pre_ln) {
    layer_norm(encoder_norm_, rows, x_, nullptr, normed_);
    memory = normed_;
  }
  // A float cache takes the projection in place; a bfloat16 one through qkv_, free by now.
  for (DecoderLayer& l : decoder_) {
    float* kv = bf16_kv_ ? qkv_ : reinterpret_cast<float*>(l.cross_kv) + base * 2 * D;
    linear(l.kv_proj, rows, memory, kv);
    if (bf16_kv_) store_kv(kv, rows * 2 * D, l.cross_kv, base * 2 * D);
  }
}

void Network::decode(size_t pos, size_t rows, const int32_t* tokens, const int32_t* slots,
                     const int32_t* sentences) {
  const size_t D = config_.d_model;
  const size_t slot_stride = static_cast<size_t>(limits_.max_tgt_len) * 2 * D;
  for (size_t r = 0; r < rows; ++r) embed(tokens + r, 1, pos, x_ + r * D);

  for (DecoderLayer& l : decoder_) {
    residual(l.norm1, rows, [&](const float* in, float* out) {
      linear(l.in_proj, rows, in, qkv_);
      auto attend = [&](size_t chunk, size_t begin, size_t end) {
        float* scratch = attn_scratch_ + chunk * attn_scratch_len_;
        for (size_t r = begin; r < end; ++r) {
          const size_t slot = slots[r] * slot_stride;
          store_kv(qkv_ + r * 3 * D + D, 2 * D, l.self_kv, slot + pos * 2 * D);
          attend_kv(qkv_ + r * 3 * D, 3 * D, l.self_kv, slot, pos + 1, attn_ + r * D, scratch);
        }
      };
      pool_->for_chunks(rows, attend);
      linear(l.out_proj, rows, attn_, out);
    });
    residual(l.norm2, rows, [&](const float* in, float* out) {
      linear(l.q_proj, rows, in, qkv_);
      auto attend = [&](size_t chunk, size_t begin, size_t end) {
        float* scratch = attn_scratch_ + chunk * attn_scratch_len_;
        for (size_t r = begin; r < end; ++r) {
          const size_t b = sentences[r];
          attend_kv(qkv_ + r * D, D, l.cross_kv, src_offset_[b] * 2 * D, src_len_[b], attn_ + r * D, scratch);
        }
      };
      pool_->for_chunks(rows, attend);
      linear(l.cross_out, rows, attn_, out);
    });
    residual(l.norm3, rows, [&](const float* in, float* out) { feed_forward(l.ffn, rows, in, out); });
  }
  const float* h = x_;
  if (config_.pre_ln) {
    layer_norm(decoder_norm_, rows, x_, nullptr, normed_);
    h = normed_;
  }
  if (use_columns_) {
    // Exact dot products with the rows of each sentence's candidates: nothing to refine. Rows
    // of one sentence (its beam) are next to each other, so each run of them reads the
    // candidates' rows once.
    const size_t V = config_.vocab_size;
    for (size_t r = 0; r < rows;) {
      const size_t b = sentences[r];
      size_t end = r + 1;
      while (end < rows && static_cast<size_t>(sentences[end]) == b) ++end;
      const int32_t* ids = cand_ids_ + cand_begin_[b];
      const size_t n = cand_count_[b];
      if (embed_->dtype == DType::I8)
        kernels::row_logits_qc8(h + r * D, end - r, static_cast<const int8_t*>(embed_rows_), embed_scales_, ids, n,
                                D, refine_row_, logits_ + r * V, V);
      else
        kernels::row_logits_f32(h + r * D, end - r, static_cast<const float*>(embed_rows_), ids, n, D,
                                logits_ + r * V, V);
      r = end;
    }
    return;
  }
  linear(output_, rows, h, logits_);
  if (refine_count_ > 0) refine_logits(rows, h);
}

void Network::refine_logits(size_t rows, const float* h) {
  const size_t D = config_.d_model, V = config_.vocab_size;
  for (size_t r = 0; r < rows; ++r) {
    float* row = logits_ + r * V;
    kernels::top_k(row, V, refine_count_, refine_idx_, refine_val_);
    kernels::row_logits_qc8(h + r * D, 1, static_cast<const int8_t*>(embed_rows_), embed_scales_, refine_idx_,
                            refine_count_, D, refine_row_, refine_val_, refine_count_);
    for (size_t i = 0; i < refine_count_; ++i) row[refine_idx_[i]] = refine_val_[i];
  }
}

void Network::store_kv(const float* x, size_t n, std::byte* cache, size_t at) const {
  if (bf16_kv_)
    kernels::round_bf16(x, reinterpret_cast<uint16_t*>(cache) + at, n);
  else
    std::memcpy(reinterpret_cast<float*>(cache) + at, x, n * sizeof(float));
}

void Network::attend_kv(const float* q, size_t ld_q, const std::byte* cache, size_t at, size_t kv_len, float* out,
                        float* scratch) const {
  const size_t D = config_.d_model, H = config_.n_heads, dh = config_.d_head();
  if (bf16_kv_) {
    const uint16_t* kv = reinterpret_cast<const uint16_t*>(cache) + at;
    kernels::attention_bf16(q, ld_q, kv, kv + D, 2 * D, out, D, 1, kv_len, H, dh, false, 0, scratch);
  } else {
    const float* kv = reinterpret_cast<const float*>(cache) + at;
    kernels::attention(q, ld_q, kv, kv + D, 2 * D, out, D, 1, kv_len, H, dh, false, 0, scratch);
  }
}

void Network::copy_cache(size_t from, size_t to, size_t len) {
  const size_t D = config_.d_model;
  const size_t slot_stride = static_cast<size_t>(limits_.max_tgt_len) * 2 * D;
  for (DecoderLayer& l : decoder_)
    std::memcpy(l.self_kv + to * slot_stride * kv_bytes(), l.self_kv + from * slot_stride * kv_bytes(),
                len * 2 * D * kv_bytes());
}

}  // namespace pmt::rt
