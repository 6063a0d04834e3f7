// Selection over one row of scores for greedy and beam search. No allocation.
// Order: higher value first; equal values by lower index first, so results are deterministic.
// Scores are finite or -inf (no NaN).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::kernels {

// Index of the largest x[i] (the lowest such index on ties). n >= 1.
size_t argmax(const float* x, size_t n);
// The k best entries of x[0..n), best first: indices into idx[0..k), values into val[0..k).
// 1 <= k <= n; k is small (a beam or twice a beam): the cost is O(n) plus O(k) per improvement.
void top_k(const float* x, size_t n, size_t k, int32_t* idx, float* val);

// Plain references: argmax by a scalar scan, top_k by k full passes.
size_t argmax_ref(const float* x, size_t n);
void top_k_ref(const float* x, size_t n, size_t k, int32_t* idx, float* val);

}  // namespace pmt::kernels
