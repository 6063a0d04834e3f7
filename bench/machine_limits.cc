#include "machine_limits.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace pmt::bench {
namespace {

// Iterations of the peak loops: a call lasts a few micro-seconds, long against the clock's
// resolution, short enough to take the best of many.
constexpr int kIters = 2048;
// Independent accumulators: more than FMA latency x FMA ports on current cores (4 x 2 on Zen 4/5,
// 4 x 2 on Ice Lake, 4 x 2 on Cortex-A76), so the loop is bound by throughput, not latency.
constexpr int kAcc = 12;

volatile uint64_t g_sink;  // results of the loops land here so the compiler keeps them

// Unused where no peak loop is written (32-bit ARM).
[[maybe_unused]] uint64_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Portable read loop: 64-bit words in four chains; compilers vectorise it for the baseline ISA.
uint64_t stream_generic(const uint8_t* p, size_t n) {
  uint64_t a[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      a[k] ^= w;
    }
  }
  uint64_t s = a[0] ^ a[1] ^ a[2] ^ a[3];
  for (; i < n; ++i) s += p[i];
  return s;
}

#if defined(__x86_64__) || defined(__i386__)

// Through memory: GCC 12's lane-extracting intrinsics trip -Wuninitialized inside its own headers.
__attribute__((target("avx512f"))) uint64_t first_lane(__m512i v) {
  uint64_t lanes[8];
  _mm512_storeu_si512(lanes, v);
  return lanes[0];
}

__attribute__((target("avx512f"))) void fma_avx512f() {
  __m512 acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_set1_ps(1.0f + 0.01f * static_cast<float>(j));
  const __m512 m = _mm512_set1_ps(0.9999f), a = _mm512_set1_ps(1e-4f);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_fmadd_ps(acc[j], m, a);
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = _mm512_add_ps(acc[0], acc[j]);
  float lanes[16];
  _mm512_storeu_ps(lanes, acc[0]);
  g_sink = g_sink + bits_of(lanes[0] + lanes[15]);
}

__attribute__((target("avx2,fma"))) void fma_avx2() {
  __m256 acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_set1_ps(1.0f + 0.01f * static_cast<float>(j));
  const __m256 m = _mm256_set1_ps(0.9999f), a = _mm256_set1_ps(1e-4f);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_fmadd_ps(acc[j], m, a);
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = _mm256_add_ps(acc[0], acc[j]);
  float lanes[8];
  _mm256_storeu_ps(lanes, acc[0]);
  g_sink = g_sink + bits_of(lanes[0] + lanes[7]);
}

// VPDPBUSD: 64 int8 multiply-accumulates into int32 per instruction.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void dot_avx512vnni() {
  __m512i acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_set1_epi32(j);
  const __m512i x = _mm512_set1_epi8(3), w = _mm512_set1_epi8(-5);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_dpbusd_epi32(acc[j], x, w);
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = _mm512_add_epi32(acc[0], acc[j]);
  g_sink = g_sink + first_lane(acc[0]);
}

// VPMADDWD + VPADDD on sign-extended int8: 32 multiply-accumulates per pair, the path of
// CPUs without VNNI (and of XNNPACK's AVX512SKX int8 kernels).
__attribute__((target("avx512f,avx512bw"))) void dot_avx512bw() {
  __m512i acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_set1_epi32(j);
  const __m512i x = _mm512_set1_epi16(3), w = _mm512_set1_epi16(-5);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_add_epi32(acc[j], _mm512_madd_epi16(x, w));
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = _mm512_add_epi32(acc[0], acc[j]);
  g_sink = g_sink + first_lane(acc[0]);
}

__attribute__((target("avx2"))) void dot_avx2() {
  __m256i acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_set1_epi32(j);
  const __m256i x = _mm256_set1_epi16(3), w = _mm256_set1_epi16(-5);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(x, w));
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = _mm256_add_epi32(acc[0], acc[j]);
  g_sink = g_sink + static_cast<uint64_t>(_mm256_extract_epi32(acc[0], 0));
}

__attribute__((target("avx512f"))) uint64_t stream_avx512(const uint8_t* p, size_t n) {
  __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    a0 = _mm512_xor_si512(a0, _mm512_loadu_si512(p + i));
    a1 = _mm512_xor_si512(a1, _mm512_loadu_si512(p + i + 64));
    a2 = _mm512_xor_si512(a2, _mm512_loadu_si512(p + i + 128));
    a3 = _mm512_xor_si512(a3, _mm512_loadu_si512(p + i + 192));
  }
  a0 = _mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3));
  return first_lane(a0) + stream_generic(p + i, n - i);
}

__attribute__((target("avx2"))) uint64_t stream_avx2(const uint8_t* p, size_t n) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  const auto* v = reinterpret_cast<const __m256i*>(p);
  size_t i = 0;
  for (; i + 128 <= n; i += 128, v += 4) {
    a0 = _mm256_xor_si256(a0, _mm256_loadu_si256(v));
    a1 = _mm256_xor_si256(a1, _mm256_loadu_si256(v + 1));
    a2 = _mm256_xor_si256(a2, _mm256_loadu_si256(v + 2));
    a3 = _mm256_xor_si256(a3, _mm256_loadu_si256(v + 3));
  }
  a0 = _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3));
  uint64_t lanes[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), a0);
  return lanes[0] + stream_generic(p + i, n - i);
}

constexpr double kF32Ops512 = 2.0 * kIters * kAcc * 16;  // 16 lanes x (multiply + add)

#elif defined(__aarch64__)

void fma_neon() {
  float32x4_t acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = vdupq_n_f32(1.0f + 0.01f * static_cast<float>(j));
  const float32x4_t m = vdupq_n_f32(0.9999f), a = vdupq_n_f32(1e-4f);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = vfmaq_f32(a, acc[j], m);
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = vaddq_f32(acc[0], acc[j]);
  g_sink = g_sink + bits_of(vaddvq_f32(acc[0]));
}

#if defined(__ARM_FEATURE_DOTPROD)
// SDOT: 16 int8 multiply-accumulates into int32 per instruction.
void dot_neon() {
  int32x4_t acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = vdupq_n_s32(j);
  const int8x16_t x = vdupq_n_s8(3), w = vdupq_n_s8(-5);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = vdotq_s32(acc[j], x, w);
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = vaddq_s32(acc[0], acc[j]);
  g_sink = g_sink + static_cast<uint64_t>(vaddvq_s32(acc[0]));
}
constexpr double kDotMacs = 16;
constexpr const char* kDotIsa = "neon-dotprod";
#else
// SMLAL: 8 int8 multiply-accumulates into int16 per instruction (cores without SDOT).
void dot_neon() {
  int16x8_t acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = vdupq_n_s16(static_cast<int16_t>(j));
  const int8x8_t x = vdup_n_s8(3), w = vdup_n_s8(-5);
  for (int i = 0; i < kIters; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kAcc; ++j) acc[j] = vmlal_s8(acc[j], x, w);
  }
  for (int j = 1; j < kAcc; ++j) acc[0] = vaddq_s16(acc[0], acc[j]);
  g_sink = g_sink + static_cast<uint64_t>(vaddvq_s16(acc[0]));
}
constexpr double kDotMacs = 8;
constexpr const char* kDotIsa = "neon-smlal";
#endif

#endif

}  // namespace

PeakLoop f32_fma_loop() {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) return {"avx512f", kF32Ops512, fma_avx512f};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {"avx2+fma", kF32Ops512 / 2, fma_avx2};
  return {};
#elif defined(__aarch64__)
  return {"neon", 2.0 * kIters * kAcc * 4, fma_neon};
#else
  return {};
#endif
}

PeakLoop int8_dot_loop() {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512vnni")) return {"avx512vnni", 2.0 * kIters * kAcc * 64, dot_avx512vnni};
  if (__builtin_cpu_supports("avx512bw")) return {"avx512bw", 2.0 * kIters * kAcc * 32, dot_avx512bw};
  if (__builtin_cpu_supports("avx2")) return {"avx2", 2.0 * kIters * kAcc * 16, dot_avx2};
  return {};
#elif defined(__aarch64__)
  return {kDotIsa, 2.0 * kIters * kAcc * kDotMacs, dot_neon};
#else
  return {};
#endif
}

double measure_peak(const PeakLoop& loop) {
  if (loop.run == nullptr) return 0;
  return loop.ops / best_seconds_per_call(loop.run);
}

uint64_t stream_read(const uint8_t* data, size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) return stream_avx512(data, bytes);
  if (__builtin_cpu_supports("avx2")) return stream_avx2(data, bytes);
#endif
  return stream_generic(data, bytes);
}

double stream_seconds(size_t bytes) {
  static std::map<size_t, double> measured;
  if (auto it = measured.find(bytes); it != measured.end()) return it->second;

  const size_t padded = (bytes + 63) / 64 * 64;
  auto* buf = static_cast<uint8_t*>(std::aligned_alloc(64, std::max<size_t>(padded, 64)));
  for (size_t i = 0; i < bytes; ++i) buf[i] = static_cast<uint8_t>(i * 7 + 1);
  uint64_t sum = 0;
  const double seconds = best_seconds_per_call([&] { sum += stream_read(buf, bytes); });
  g_sink = g_sink + sum;
  std::free(buf);
  measured[bytes] = seconds;
  return seconds;
}

}  // namespace pmt::bench
