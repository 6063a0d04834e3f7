// Token-budget batches from length-sorted buckets, as in the paper ("sentence pairs were batched
// together by approximate sequence length"): each epoch sorts the pairs by length (ties broken
// randomly), cuts the sorted list into batches whose padded size fits the token budget, and
// shuffles the batch order. Everything is a pure function of (seed, epoch), so a resumed run
// replays the same batches; plan_epoch and fill never allocate.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "train/model.h"
#include "train/parallel_data.h"

namespace pmt::train {

class Batcher {
 public:
  // `data` must outlive the batcher. batch_tokens bounds B * max(S, T) of every batch (padding
  // included, so it bounds activation memory); a pair longer than the budget gets a batch alone.
  Batcher(const ParallelData* data, int64_t batch_tokens, uint64_t seed);

  // Computes the batches of `epoch` (0-based). Deterministic for (seed, epoch).
  void plan_epoch(int64_t epoch);
  int64_t epoch() const { return epoch_; }
  size_t num_batches() const { return batch_order_.size(); }
  // Pair indices of batch `b` of the current epoch, in the batch's row order.
  std::span<const uint32_t> batch_pairs(size_t b) const;
  // Writes batch `b` into `out`; no allocation once `out` was sized by reserve_batch(limits()).
  void fill(size_t b, Batch* out) const;

  // Bounds that hold for every batch of every epoch: the longest source and target in the data
  // and the largest row count the budget admits.
  BatchLimits limits() const { return limits_; }

 private:
  const ParallelData* data_;
  int64_t batch_tokens_;
  uint64_t seed_;
  int64_t epoch_ = -1;
  BatchLimits limits_;
  std::vector<uint64_t> sort_keys_;    // per pair: length key + random tie-break, this epoch
  std::vector<uint32_t> sorted_;       // pair indices sorted by sort_keys_
  std::vector<uint32_t> batch_start_;  // batch i = sorted_[batch_start_[i] .. batch_start_[i+1])
  std::vector<uint32_t> batch_order_;  // shuffled batch indices
};

// Sizes the vectors of `batch` for the largest batch within `limits`, so that later fills only
// resize inside the reserved capacity.
void reserve_batch(const BatchLimits& limits, Batch* batch);

// Writes the pairs `indices` of `data` into `out` as a padded batch (see Batch in model.h).
void make_batch(const ParallelData& data, std::span<const uint32_t> indices, Batch* out);

}  // namespace pmt::train
