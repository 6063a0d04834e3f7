// Token batching: layout of one batch, every pair exactly once per epoch, the token budget,
// and determinism per (seed, epoch).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "train/batching.h"

using pmt::train::Batch;
using pmt::train::Batcher;
using pmt::train::ParallelData;

namespace {

// Pairs with random lengths 1..40 (pieces) on each side; ids encode (pair, position) so a test
// can tell which pair a row came from.
ParallelData random_lengths(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ParallelData d;
  for (size_t i = 0; i < n; ++i) {
    std::vector<int32_t> s(1 + rng() % 40, 10), t(1 + rng() % 40, 11);
    d.add(s, t);
  }
  return d;
}

std::vector<std::vector<uint32_t>> plan(Batcher& b, int64_t epoch) {
  b.plan_epoch(epoch);
  std::vector<std::vector<uint32_t>> out;
  for (size_t i = 0; i < b.num_batches(); ++i) {
    const auto p = b.batch_pairs(i);
    out.emplace_back(p.begin(), p.end());
  }
  return out;
}

}  // namespace

TEST_CASE("a batch is padded source / BOS-shifted decoder input / EOS-terminated target") {
  ParallelData d;
  d.add(std::vector<int32_t>{7, 8}, std::vector<int32_t>{20, 21, 22});
  d.add(std::vector<int32_t>{9}, std::vector<int32_t>{30});
  Batch b;
  pmt::train::make_batch(d, std::vector<uint32_t>{0, 1}, &b);
  CHECK(b.batch == 2);
  CHECK(b.src_len == 3);  // 2 pieces + EOS
  CHECK(b.tgt_len == 4);  // 3 pieces + EOS
  CHECK(b.src == std::vector<int32_t>{7, 8, 3, /**/ 9, 3, 0});
  CHECK(b.tgt_in == std::vector<int32_t>{2, 20, 21, 22, /**/ 2, 30, 0, 0});
  CHECK(b.tgt_out == std::vector<int32_t>{20, 21, 22, 3, /**/ 30, 3, 0, 0});
  CHECK(b.target_tokens() == 6);
}

TEST_CASE("every pair appears exactly once per epoch and the token budget holds") {
  const ParallelData d = random_lengths(500, 7);
  const int64_t budget = 300;
  Batcher batcher(&d, budget, 1);
  const auto limits = batcher.limits();
  Batch b;
  pmt::train::reserve_batch(limits, &b);
  const auto* src_data = b.src.data();
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    const auto batches = plan(batcher, epoch);
    std::vector<int> seen(d.size(), 0);
    for (size_t i = 0; i < batches.size(); ++i) {
      int32_t longest = 0;
      for (uint32_t p : batches[i]) {
        ++seen[p];
        longest = std::max<int32_t>(longest, static_cast<int32_t>(std::max(d.pairs[p].src_len, d.pairs[p].tgt_len)));
      }
      CHECK(static_cast<int64_t>(batches[i].size()) * longest <= budget);
      batcher.fill(i, &b);
      CHECK(b.batch <= limits.max_batch);
      CHECK(b.src_len <= limits.max_src_len);
      CHECK(b.tgt_len <= limits.max_tgt_len);
      CHECK(static_cast<int64_t>(b.src.size()) <= limits.max_src_tokens);
      CHECK(static_cast<int64_t>(b.tgt_in.size()) <= limits.max_tgt_tokens);
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    // Batches are reasonably full: most of the budget is used on average.
    CHECK(static_cast<double>(d.size()) / static_cast<double>(batches.size()) > 5.0);
  }
  CHECK(b.src.data() == src_data);  // filled within the reserved capacity, never reallocated
}

TEST_CASE("a pair longer than the budget gets a batch of its own") {
  ParallelData d;
  d.add(std::vector<int32_t>(50, 10), std::vector<int32_t>(5, 11));
  d.add(std::vector<int32_t>(3, 10), std::vector<int32_t>(3, 11));
  Batcher batcher(&d, 20, 1);
  const auto batches = plan(batcher, 0);
  CHECK(batches.size() == 2);
  CHECK(batcher.limits().max_src_tokens >= 51);
}

TEST_CASE("the plan is a function of (seed, epoch)") {
  const ParallelData d = random_lengths(300, 3);
  Batcher a(&d, 256, 42), b(&d, 256, 42), c(&d, 256, 43);
  const auto a0 = plan(a, 0), a1 = plan(a, 1);
  CHECK(plan(b, 1) == a1);  // same seed and epoch, whatever was planned before
  CHECK(plan(b, 0) == a0);
  CHECK(a0 != a1);          // a new order every epoch
  CHECK(plan(c, 0) != a0);  // and for another seed
}
