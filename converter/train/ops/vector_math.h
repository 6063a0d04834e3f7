// Element-wise math written so GCC vectorizes it at the baseline ISA without -ffast-math:
// branch-free bodies, no libm calls, and reductions split over independent lanes (a plain
// `sum += x[i]` must be added in order, which keeps it scalar).
#pragma once

#include <bit>
#include <cstdint>

namespace pmt::train {

// e^x with relative error below 3e-7 for x in [-87, 88]; below that it returns about 1e-38
// instead of flushing to 0, and NaN for NaN (the callers pass x - max <= 0 of the logits).
// Range reduction x = n ln2 + f with |f| <= ln2/2 (ln2 split in two for exactness), then a
// degree-6 Taylor polynomial of e^f scaled by 2^n built from exponent bits.
inline float exp_fast(float x) {
  // Selects, not branches, so that loops stay vectorized. Below -87 the power of two would leave
  // the normal floats; NaN (a diverged step, which the trainer then reports) must not reach the
  // float-to-int conversion, which is undefined for it (UBSan, in the clang build).
  x = x < -87.f ? -87.f : x;
  const float n = (x * 1.44269504f + 12582912.f) - 12582912.f;  // round(x / ln2): 1.5 * 2^23 trick
  const float f = x - n * 0.693145752f - n * 1.42860677e-6f;
  float p = 1.f / 720.f;
  p = p * f + 1.f / 120.f;
  p = p * f + 1.f / 24.f;
  p = p * f + 1.f / 6.f;
  p = p * f + 0.5f;
  p = p * f + 1.f;
  p = p * f + 1.f;
  const int32_t e = static_cast<int32_t>(n == n ? n : 0.f);
  return p * std::bit_cast<float>((e + 127) << 23);
}

inline constexpr int kLanes = 16;

// Sum of x[0..n) over kLanes partial sums.
inline float sum_lanes(const float* x, long n) {
  float acc[kLanes] = {};
  long i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l];
  float s = 0.f;
  for (; i < n; ++i) s += x[i];
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  return s;
}

// Largest of x[0..n), n >= 1.
inline float max_lanes(const float* x, long n) {
  float acc[kLanes];
  for (int l = 0; l < kLanes; ++l) acc[l] = x[0];
  long i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] = x[i + l] > acc[l] ? x[i + l] : acc[l];
  float m = x[0];
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  for (int l = 0; l < kLanes; ++l) m = acc[l] > m ? acc[l] : m;
  return m;
}

}  // namespace pmt::train
