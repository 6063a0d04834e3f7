// The SIMD layer of the kernels: a 16-float vector type in GCC/Clang vector extensions, which the
// compiler maps onto one AVX-512 register, two AVX2 registers or four SSE/NEON registers, plus the
// reductions and the exp the kernels share. Plain elementwise loops stay plain C++ (g++ -O3
// vectorizes those on its own); this layer is for what it does not: horizontal reductions kept in
// registers, and exp.
// Reductions add lanes in one fixed tree order, so every instruction set sums the same terms in
// the same order; the runtime and the trainer's ops are built with -ffp-contract=off, so no FMA
// contraction changes a bit either: results are identical on every target.
// The add-1.5*2^23 rounding trick here and in quantize needs IEEE arithmetic: no -ffast-math.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

// The hot kernels are compiled three times on x86-64 Linux (AVX-512, AVX2+FMA, baseline SSE2)
// and the loader picks the best clone for the CPU (GNU ifunc), so a portable build still runs
// wide vectors. Not needed when the whole build already targets the machine (PMT_NATIVE).
// Defining PMT_MULTIVERSION empty on the command line builds the baseline version only.
#if defined(PMT_MULTIVERSION)
#elif defined(__x86_64__) && defined(__gnu_linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__AVX2__)
#define PMT_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PMT_MULTIVERSION
#endif

// 32-bit ARM: Debian's armhf baseline has no NEON, though every Pi and phone that runs armhf has
// it. There the files of the PMT_MULTIVERSION kernels are compiled twice (runtime/CMakeLists.txt):
// the baseline copy names each kernel name_vfp, the NEON copy (PMT_NEON_COPY) name_neon, and
// kernels/neon_dispatch.cc defines `name` itself, calling the copy the CPU can run (HWCAP_NEON).
#if defined(__arm__) && !defined(__aarch64__)
#if defined(PMT_NEON_COPY)
#define PMT_KERNEL(name) name##_neon
#else
#define PMT_KERNEL(name) name##_vfp
#endif
#else
#define PMT_KERNEL(name) name
#endif

// The helpers below must be inlined into each clone to be compiled for its instruction set.
#define PMT_INLINE inline __attribute__((always_inline))

// GCC warns wherever a 32-byte vector is passed or returned by value in code not compiled for
// AVX: at every call of these helpers too, hence for the rest of each including file. The
// helpers are always inlined, so no call, and no calling convention, is involved.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace pmt::kernels::simd {

// A Vec is 16 floats held as kParts native vectors (Parts) of kPartLanes: two 8-float AVX
// registers on x86-64 (one per half of an AVX-512 register's worth), four 4-float registers on
// ARM. A single 16-float GCC vector would be one register only where the target has 64-byte
// registers; on AVX2, SSE2 and NEON GCC 12 keeps it in memory and moves every operation through
// the stack (measured: a 256-float dot product's loop spilled its accumulator every iteration,
// and 22 % of a shortlist decoder step went there). The lanes, and so every reduction's order,
// are the same whatever the split.
inline constexpr size_t kLanes = 16;
#if defined(__x86_64__) || defined(__i386__)
inline constexpr size_t kPartLanes = 8;
#else
inline constexpr size_t kPartLanes = 4;
#endif
inline constexpr size_t kParts = kLanes / kPartLanes;
using Part = float __attribute__((vector_size(kPartLanes * sizeof(float))));
using IPart = int32_t __attribute__((vector_size(kPartLanes * sizeof(int32_t))));
struct Vec {
  Part p[kParts];
};
struct Mask {  // a lane comparison: all bits set where true
  IPart p[kParts];
};

PMT_INLINE Vec operator+(Vec a, const Vec& b) {
  for (size_t k = 0; k < kParts; ++k) a.p[k] += b.p[k];
  return a;
}
PMT_INLINE Vec operator-(Vec a, const Vec& b) {
  for (size_t k = 0; k < kParts; ++k) a.p[k] -= b.p[k];
  return a;
}
PMT_INLINE Vec operator*(Vec a, const Vec& b) {
  for (size_t k = 0; k < kParts; ++k) a.p[k] *= b.p[k];
  return a;
}
PMT_INLINE Vec operator*(float x, Vec a) {
  for (size_t k = 0; k < kParts; ++k) a.p[k] *= x;
  return a;
}
PMT_INLINE Vec& operator+=(Vec& a, const Vec& b) { return a = a + b; }
PMT_INLINE Mask operator>(const Vec& a, float x) {
  Mask m;
  for (size_t k = 0; k < kParts; ++k) m.p[k] = a.p[k] > x;
  return m;
}
// Lane-wise maximum (the first operand where they compare equal or unordered).
PMT_INLINE Vec max(Vec a, const Vec& b) {
  for (size_t k = 0; k < kParts; ++k) a.p[k] = a.p[k] > b.p[k] ? a.p[k] : b.p[k];
  return a;
}

PMT_INLINE Vec broadcast(float x) {
  Vec v;
  for (size_t k = 0; k < kParts; ++k) v.p[k] = Part{} + x;
  return v;
}
PMT_INLINE Vec load(const float* p) {
  Vec v;
  for (size_t k = 0; k < kParts; ++k) std::memcpy(&v.p[k], p + k * kPartLanes, sizeof(Part));
  return v;
}
PMT_INLINE void store(float* p, const Vec& v) {
  for (size_t k = 0; k < kParts; ++k) std::memcpy(p + k * kPartLanes, &v.p[k], sizeof(Part));
}
// The first n < kLanes floats of p; the other lanes hold `fill` (the reduction's neutral value).
PMT_INLINE Vec load_partial(const float* p, size_t n, float fill) {
  float lanes[kLanes];
  for (size_t l = 0; l < kLanes; ++l) lanes[l] = l < n ? p[l] : fill;
  return load(lanes);
}
// bfloat16 (the high half of a float's bits, as uint16_t), 2 * kLanes values at a time, read as
// kLanes 32-bit words: the low half of word l is element 2l, the high half element 2l + 1
// (little-endian). Widened in that split, even and odd, each half costs one shift or one mask
// per word, where widening in order costs a zero-extension and a shift per element.
static_assert(std::endian::native == std::endian::little, "bfloat16 pairs assume little-endian words");
struct Halves {
  Vec even, odd;
};
PMT_INLINE Halves load_bf16_pairs(const uint16_t* p) {
  using UPart = uint32_t __attribute__((vector_size(kPartLanes * sizeof(uint32_t))));
  Halves h;
  for (size_t k = 0; k < kParts; ++k) {
    UPart w;
    std::memcpy(&w, p + 2 * k * kPartLanes, sizeof w);
    const UPart even = w << 16, odd = w & 0xFFFF0000u;
    std::memcpy(&h.even.p[k], &even, sizeof even);
    std::memcpy(&h.odd.p[k], &odd, sizeof odd);
  }
  return h;
}
PMT_INLINE float widen_bf16(uint16_t x) { return std::bit_cast<float>(uint32_t{x} << 16); }
PMT_INLINE void store_partial(float* p, const Vec& v, size_t n) {
  float lanes[kLanes];
  store(lanes, v);
  for (size_t l = 0; l < n; ++l) p[l] = lanes[l];
}

// Horizontal sum and maximum by halving, 16 -> 8 -> 4 -> 2 -> 1 lanes: lane l meets lane
// l + 8, then l + 4, then (0 + 2) + (1 + 3).
PMT_INLINE float hsum(const Vec& v) {
  Part a[kParts];
  for (size_t k = 0; k < kParts; ++k) a[k] = v.p[k];
  for (size_t n = kParts / 2; n >= 1; n /= 2)
    for (size_t k = 0; k < n; ++k) a[k] += a[k + n];
  float b[kPartLanes];
  std::memcpy(b, &a[0], sizeof b);
  for (size_t n = kPartLanes / 2; n >= 4; n /= 2)
    for (size_t l = 0; l < n; ++l) b[l] += b[l + n];
  return (b[0] + b[2]) + (b[1] + b[3]);
}
PMT_INLINE float hmax(const Vec& v) {
  Part a[kParts];
  for (size_t k = 0; k < kParts; ++k) a[k] = v.p[k];
  for (size_t n = kParts / 2; n >= 1; n /= 2)
    for (size_t k = 0; k < n; ++k) a[k] = a[k] > a[k + n] ? a[k] : a[k + n];
  float b[kPartLanes];
  std::memcpy(b, &a[0], sizeof b);
  for (size_t n = kPartLanes / 2; n >= 4; n /= 2)
    for (size_t l = 0; l < n; ++l) b[l] = b[l] > b[l + n] ? b[l] : b[l + n];
  const float c0 = b[0] > b[2] ? b[0] : b[2], c1 = b[1] > b[3] ? b[1] : b[3];
  return c0 > c1 ? c0 : c1;
}
// True when any lane of a comparison result is set.
PMT_INLINE bool any(const Mask& mask) {
  IPart a = mask.p[0];
  for (size_t k = 1; k < kParts; ++k) a |= mask.p[k];
  int32_t lanes[kPartLanes];
  std::memcpy(lanes, &a, sizeof lanes);
  int32_t r = 0;
  for (size_t l = 0; l < kPartLanes; ++l) r |= lanes[l];
  return r != 0;
}

PMT_INLINE float sum(const float* x, size_t n) {
  Vec acc = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc += load(x + i);
  if (i < n) acc += load_partial(x + i, n - i, 0.0f);
  return hsum(acc);
}

PMT_INLINE float dot(const float* a, const float* b, size_t n) {
  Vec acc = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc += load(a + i) * load(b + i);
  if (i < n) acc += load_partial(a + i, n - i, 0.0f) * load_partial(b + i, n - i, 0.0f);
  return hsum(acc);
}

// Largest element; n >= 1.
PMT_INLINE float max(const float* x, size_t n) {
  Vec acc = broadcast(x[0]);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc = max(load(x + i), acc);
  if (i < n) acc = max(load_partial(x + i, n - i, x[0]), acc);
  return hmax(acc);
}

// cond ? a : b spelled as bit operations. Under GCC's default -ftrapping-math the vectorizer
// will not if-convert a ?: whose arms feed or follow arithmetic that might trap (it splits the
// paths instead), except with AVX-512 masks; bit operations never trap, so this vectorizes at
// every width.
PMT_INLINE float select(bool cond, float a, float b) {
  const int32_t mask = -static_cast<int32_t>(cond);
  return std::bit_cast<float>((std::bit_cast<int32_t>(a) & mask) |
                              (std::bit_cast<int32_t>(b) & ~mask));
}

// exp(x) for x in [-87.3, 88.3] with a relative error of a few float ulps (below 1e-6);
// 0 below that range (where exp would be subnormal) and exp(88.3) above it.
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, then the degree-7 Taylor polynomial of e^r
// (truncation error r^8/8! < 6e-9) scaled by 2^n built in the exponent bits.
// A scalar function, meant for loops over kLanes elements: the vectorizer then uses the native
// compares of each instruction set, where the lowering of 16-lane Vec comparisons on targets
// with narrower vectors (SSE2, NEON) would take one scalar comparison per lane.
PMT_INLINE float exp(float x) {
  constexpr float kMin = -87.3f, kMax = 88.3f;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;     // ln 2 rounded to 10 bits: n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 - kLn2Hi
  constexpr float kRound = 12582912.0f;      // 1.5 * 2^23: adding it rounds to an integer
  // Written so that NaN selects kMin: a NaN n would make the int conversion below undefined.
  const float xc = select(x > kMin, select(x < kMax, x, kMax), kMin);
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
  return select(x < kMin, 0.0f, p * two_n);
}

// exp(x[l] - m) for the kLanes lanes of x.
PMT_INLINE Vec exp_shifted(const Vec& x, float m) {
  float in[kLanes], out[kLanes];
  store(in, x);
  for (size_t l = 0; l < kLanes; ++l) out[l] = exp(in[l] - m);
  return load(out);
}

}  // namespace pmt::kernels::simd
