#include "train/batching.h"

#include <algorithm>

#include "train/ops/dropout.h"

namespace pmt::train {

namespace {

// Independent random streams for the tie-break keys and the batch shuffle of one epoch.
uint64_t random_bits(uint64_t seed, int64_t epoch, uint64_t stream, uint64_t i) {
  return hash64(hash64(hash64(seed ^ 0x5bd1e995ULL) + static_cast<uint64_t>(epoch)) + stream * 0x9e3779b97f4a7c15ULL + i);
}

}  // namespace

Batcher::Batcher(const ParallelData* data, int64_t batch_tokens, uint64_t seed)
    : data_(data), batch_tokens_(batch_tokens), seed_(seed) {
  const size_t n = data->size();
  int32_t shortest = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& p = data->pairs[i];
    limits_.max_src_len = std::max(limits_.max_src_len, static_cast<int32_t>(p.src_len));
    limits_.max_tgt_len = std::max(limits_.max_tgt_len, static_cast<int32_t>(p.tgt_len));
    const auto longer = static_cast<int32_t>(std::max(p.src_len, p.tgt_len));
    shortest = i == 0 ? longer : std::min(shortest, longer);
  }
  const int64_t rows = shortest > 0 ? batch_tokens / shortest : 1;
  limits_.max_batch = static_cast<int32_t>(std::clamp<int64_t>(rows, 1, static_cast<int64_t>(std::max<size_t>(n, 1))));
  // A batch of several rows keeps B * max(S, T) within the budget; a single row may exceed it.
  limits_.max_src_tokens = std::max<int64_t>(batch_tokens, limits_.max_src_len);
  limits_.max_tgt_tokens = std::max<int64_t>(batch_tokens, limits_.max_tgt_len);
  sort_keys_.resize(n);
  sorted_.resize(n);
  batch_start_.reserve(n + 1);
  batch_order_.reserve(n);
}

void Batcher::plan_epoch(int64_t epoch) {
  epoch_ = epoch;
  const size_t n = data_->size();
  // Target length first (it drives the decoder's cost and the loss), then source length, then a
  // random 32-bit tie-break that changes every epoch so equal-length pairs meet new neighbours.
  for (size_t i = 0; i < n; ++i) {
    const auto& p = data_->pairs[i];
    sort_keys_[i] = (static_cast<uint64_t>(p.tgt_len) << 48) | (static_cast<uint64_t>(p.src_len) << 32) |
                    (random_bits(seed_, epoch, 0, i) >> 32);
    sorted_[i] = static_cast<uint32_t>(i);
  }
  // std::sort is in place (no allocation); the index comparison makes the order total.
  std::sort(sorted_.begin(), sorted_.end(), [this](uint32_t a, uint32_t b) {
    return sort_keys_[a] != sort_keys_[b] ? sort_keys_[a] < sort_keys_[b] : a < b;
  });

  batch_start_.clear();
  int64_t rows = 0, longest = 0;
  for (size_t k = 0; k < n; ++k) {
    const auto& p = data_->pairs[sorted_[k]];
    const int64_t len = std::max(p.src_len, p.tgt_len);
    const int64_t grown = std::max(longest, len);
    if (rows == 0 || (rows + 1) * grown > batch_tokens_) {
      batch_start_.push_back(static_cast<uint32_t>(k));
      rows = 0;
      longest = len;
    } else {
      longest = grown;
    }
    ++rows;
  }
  batch_start_.push_back(static_cast<uint32_t>(n));

  // Fisher-Yates over the batch order.
  const size_t batches = batch_start_.size() - 1;
  batch_order_.resize(batches);
  for (size_t b = 0; b < batches; ++b) batch_order_[b] = static_cast<uint32_t>(b);
  for (size_t b = batches; b > 1; --b) {
    const size_t j = random_bits(seed_, epoch, 1, b) % b;
    std::swap(batch_order_[b - 1], batch_order_[j]);
  }
}

std::span<const uint32_t> Batcher::batch_pairs(size_t b) const {
  const uint32_t k = batch_order_[b];
  return {sorted_.data() + batch_start_[k], batch_start_[k + 1] - batch_start_[k]};
}

void Batcher::fill(size_t b, Batch* out) const { make_batch(*data_, batch_pairs(b), out); }

void reserve_batch(const BatchLimits& limits, Batch* batch) {
  // The token bounds, where set, are tighter than rows * longest.
  auto bound = [&limits](int32_t len, int64_t tokens) {
    const int64_t product = static_cast<int64_t>(limits.max_batch) * len;
    return static_cast<size_t>(tokens > 0 ? std::min(product, tokens) : product);
  };
  batch->src.reserve(bound(limits.max_src_len, limits.max_src_tokens));
  batch->tgt_in.reserve(bound(limits.max_tgt_len, limits.max_tgt_tokens));
  batch->tgt_out.reserve(bound(limits.max_tgt_len, limits.max_tgt_tokens));
}

void make_batch(const ParallelData& data, std::span<const uint32_t> indices, Batch* out) {
  int32_t S = 0, T = 0;
  for (uint32_t i : indices) {
    S = std::max(S, static_cast<int32_t>(data.pairs[i].src_len));
    T = std::max(T, static_cast<int32_t>(data.pairs[i].tgt_len));
  }
  const auto B = static_cast<int32_t>(indices.size());
  out->batch = B;
  out->src_len = S;
  out->tgt_len = T;
  out->src.assign(static_cast<size_t>(B) * S, kPadId);
  out->tgt_in.assign(static_cast<size_t>(B) * T, kPadId);
  out->tgt_out.assign(static_cast<size_t>(B) * T, kPadId);
  for (int32_t r = 0; r < B; ++r) {
    const auto src = data.src(indices[r]);
    const auto tgt = data.tgt(indices[r]);
    std::copy(src.begin(), src.end(), out->src.begin() + static_cast<ptrdiff_t>(r) * S);
    int32_t* in = out->tgt_in.data() + static_cast<ptrdiff_t>(r) * T;
    in[0] = kBosId;
    std::copy(tgt.begin(), tgt.end() - 1, in + 1);  // BOS + pieces
    std::copy(tgt.begin(), tgt.end(), out->tgt_out.begin() + static_cast<ptrdiff_t>(r) * T);  // pieces + EOS
  }
}

}  // namespace pmt::train
