// Building blocks the kernels share, written so that g++ -O3 turns them into SIMD code without
// intrinsics: fixed-width lane arrays (the inner loop over kLanes is unrolled and SLP-vectorized
// into one AVX-512, two AVX2 or four SSE/NEON registers) and branch-free arithmetic.
// Sums are taken in kLanes partial sums folded in a fixed tree order, so every target adds the
// same terms in the same order (only FMA contraction may change the last bit).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

// The hot kernels are compiled three times on x86-64 Linux (AVX-512, AVX2+FMA, baseline SSE2)
// and the loader picks the best clone for the CPU (GNU ifunc), so a portable build still runs
// wide vectors. Not needed when the whole build already targets the machine (PMT_NATIVE).
#if defined(__x86_64__) && defined(__gnu_linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__AVX2__)
#define PMT_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PMT_MULTIVERSION
#endif

// The helpers below must be inlined into each clone to be compiled for its instruction set.
#define PMT_INLINE inline __attribute__((always_inline))

namespace pmt::kernels::simd {

inline constexpr size_t kLanes = 16;

// Folds kLanes partial results into lane 0 in a fixed tree order.
PMT_INLINE float fold_sum(float* acc) {
  for (size_t width = kLanes / 2; width > 0; width /= 2)
    for (size_t l = 0; l < width; ++l) acc[l] += acc[l + width];
  return acc[0];
}
PMT_INLINE float fold_max(float* acc) {
  for (size_t width = kLanes / 2; width > 0; width /= 2)
    for (size_t l = 0; l < width; ++l) acc[l] = acc[l] > acc[l + width] ? acc[l] : acc[l + width];
  return acc[0];
}

PMT_INLINE float sum(const float* __restrict x, size_t n) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) acc[l] += x[i + l];
  for (size_t l = 0; i < n; ++i, ++l) acc[l] += x[i];
  return fold_sum(acc);
}

PMT_INLINE float dot(const float* __restrict a, const float* __restrict b, size_t n) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) acc[l] += a[i + l] * b[i + l];
  for (size_t l = 0; i < n; ++i, ++l) acc[l] += a[i] * b[i];
  return fold_sum(acc);
}

// Largest element; n >= 1.
PMT_INLINE float max(const float* __restrict x, size_t n) {
  float acc[kLanes];
  for (size_t l = 0; l < kLanes; ++l) acc[l] = x[0];
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t l = 0; l < kLanes; ++l) acc[l] = x[i + l] > acc[l] ? x[i + l] : acc[l];
  for (size_t l = 0; i < n; ++i, ++l) acc[l] = x[i] > acc[l] ? x[i] : acc[l];
  return fold_max(acc);
}

// exp(x) for x in [-87.3, 88.3] with a relative error of a few float ulps (below 1e-6);
// 0 below that range (where exp would be subnormal) and exp(88.3) above it.
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, then the degree-7 Taylor polynomial of e^r
// (truncation error r^8/8! < 6e-9) scaled by 2^n built in the exponent bits.
PMT_INLINE float exp(float x) {
  constexpr float kMin = -87.3f, kMax = 88.3f;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;         // ln 2 rounded to 10 bits: n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;      // ln 2 - kLn2Hi
  constexpr float kRound = 12582912.0f;          // 1.5 * 2^23: adding it rounds to an integer
  const float xc = x < kMin ? kMin : (x > kMax ? kMax : x);
  const float n = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const float two_n = std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
  return x < kMin ? 0.0f : p * two_n;
}

}  // namespace pmt::kernels::simd
