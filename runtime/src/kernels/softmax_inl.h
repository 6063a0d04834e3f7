// Softmax pieces shared by the softmax kernels and by attention (which runs them on its scores
// inside its own multiversioned clone). Internal to the kernels.
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/simd.h"

namespace pmt::kernels {

// sum_i exp(x[i] - m); with dest, also writes exp(x[i] - m) to dest[i] (dest may be x).
PMT_INLINE float sum_exp(const float* x, float m, float* dest, size_t n) {
  simd::Vec acc = {};
  size_t i = 0;
  for (; i + simd::kLanes <= n; i += simd::kLanes) {
    const simd::Vec e = simd::exp_shifted(simd::load(x + i), m);
    if (dest != nullptr) simd::store(dest + i, e);
    acc += e;
  }
  if (i < n) {  // padding lanes hold -inf, whose exp is 0
    const simd::Vec e = simd::exp_shifted(simd::load_partial(x + i, n - i, -INFINITY), m);
    if (dest != nullptr) simd::store_partial(dest + i, e, n - i);
    acc += e;
  }
  return simd::hsum(acc);
}

// x[i] <- exp(x[i] - max) / sum_j exp(x[j] - max), n >= 1.
PMT_INLINE void softmax_inplace(float* x, size_t n) {
  const float inv_z = 1.0f / sum_exp(x, simd::max(x, n), x, n);
  for (size_t j = 0; j < n; ++j) x[j] *= inv_z;
}

}  // namespace pmt::kernels
