// The in-place softmax body, shared by the softmax kernel and by attention (which runs it on
// its scores inside its own multiversioned clone). Internal to the kernels.
#pragma once

#include <cstddef>

#include "kernels/simd.h"

namespace pmt::kernels {

// x[i] <- exp(x[i] - max) / sum_j exp(x[j] - max), n >= 1.
PMT_INLINE void softmax_inplace(float* __restrict x, size_t n) {
  const float m = simd::max(x, n);
  float acc[simd::kLanes] = {};
  size_t i = 0;
  for (; i + simd::kLanes <= n; i += simd::kLanes)
    for (size_t l = 0; l < simd::kLanes; ++l) {
      x[i + l] = simd::exp(x[i + l] - m);
      acc[l] += x[i + l];
    }
  for (size_t l = 0; i < n; ++i, ++l) {
    x[i] = simd::exp(x[i] - m);
    acc[l] += x[i];
  }
  const float inv_z = 1.0f / simd::fold_sum(acc);
  for (size_t j = 0; j < n; ++j) x[j] *= inv_z;
}

}  // namespace pmt::kernels
