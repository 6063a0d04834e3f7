#include "kernels/gemm_qs8.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
// GCC 12 warns inside its own AVX-512 intrinsics (their _mm512_undefined_* operands).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

namespace pmt::kernels {
namespace {

constexpr size_t kBlock = 16;  // output channels of one 512-bit vector of int32
constexpr size_t kPanel = 64;  // output channels of one packed panel
constexpr size_t kSumBytes = kPanel * sizeof(int32_t);  // a panel's constants; also one k step's bytes

size_t panel_bytes(size_t in) { return kSumBytes + in * kPanel; }

// Clamp in float, then round to nearest even and add the zero point: the same integers as
// XNNPACK's order (round, then clamp), since the bounds are integers, and no int32 overflow.
float requantize_input(int32_t acc, float scale, const GemmQs8Output& output) {
  const float v = static_cast<float>(acc) * scale;
  return std::clamp(v, static_cast<float>(output.min - output.zero_point),
                    static_cast<float>(output.max - output.zero_point));
}

}  // namespace

size_t gemm_qs8_packed_size(size_t out, size_t in) { return (out + kPanel - 1) / kPanel * panel_bytes(in); }

void gemm_qs8_pack(const int8_t* w, const int32_t* bias, size_t out, size_t in, int32_t x_zero_point,
                   uint8_t* packed) {
  for (size_t p = 0; p * kPanel < out; ++p) {
    uint8_t* panel = packed + p * panel_bytes(in);
    int32_t sums[kPanel];
    for (size_t j = 0; j < kPanel; ++j) {
      const size_t c = p * kPanel + j;
      const int8_t* row = c < out ? w + c * in : nullptr;
      // 4 bytes at a time: w + 128 is w with its sign bit flipped.
      for (size_t k4 = 0; k4 < in / 4; ++k4) {
        uint32_t v = 0;
        if (c < out) std::memcpy(&v, row + 4 * k4, 4);
        v ^= 0x80808080u;
        std::memcpy(panel + kSumBytes + k4 * kSumBytes + j * 4, &v, 4);
      }
      int32_t sum = 0;
      if (c < out)
        for (size_t k = 0; k < in; ++k) sum += row[k];
      // Unsigned wrap-around, as the int32 sums of the GEMM itself.
      sums[j] = c < out ? static_cast<int32_t>(static_cast<uint32_t>(bias != nullptr ? bias[c] : 0) -
                                               static_cast<uint32_t>(x_zero_point) * static_cast<uint32_t>(sum))
                        : 0;
    }
    std::memcpy(panel, sums, sizeof(sums));
  }
}

void gemm_qs8_ref(const int8_t* x, size_t rows, size_t out, size_t in, const int8_t* w, const int32_t* bias,
                  int32_t x_zero_point, const GemmQs8Output& output, int8_t* y) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < out; ++c) {
      int32_t acc = bias != nullptr ? bias[c] : 0;
      for (size_t k = 0; k < in; ++k) acc += (x[r * in + k] - x_zero_point) * w[c * in + k];
      const float v = std::nearbyint(requantize_input(acc, output.scale[c], output));
      y[r * out + c] = static_cast<int8_t>(static_cast<int32_t>(v) + output.zero_point);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)

bool cpu_has_avx512_vnni() {
  static const bool has = [] {
    const char* off = std::getenv("PMT_NO_VNNI");
    if (off != nullptr && std::strcmp(off, "1") == 0) return false;
    __builtin_cpu_init();
    // libgcc reports AVX-512 features only where the OS saves the ZMM state (XGETBV).
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vnni");
  }();
  return has;
}

namespace {

#define PMT_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

// Channel c's constants; its weights of k step k4 are at kSumBytes + k4 * kSumBytes from there.
const uint8_t* channel_base(const uint8_t* packed, size_t in, size_t c) {
  return packed + c / kPanel * panel_bytes(in) + c % kPanel * sizeof(int32_t);
}

// acc + the products of u8's unsigned and s8's signed bytes, 4 to each int32 lane. GCC 12 copies
// every accumulator of the intrinsic's loop to another register and back (and some to the
// stack) on each k step; the asm keeps each in its register.
PMT_VNNI inline __attribute__((always_inline)) __m512i dpbusd(__m512i acc, __m512i u8, __m512i s8) {
#if defined(__clang__)
  return _mm512_dpbusd_epi32(acc, u8, s8);
#else
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
  return acc;
#endif
}

// One k step (4 bytes of each row) into one set of accumulators.
template <int MR, int NB>
PMT_VNNI inline __attribute__((always_inline)) void k_step(__m512i (&acc)[MR][NB], const int8_t* x, size_t in,
                                                           const uint8_t* base, size_t k4) {
  __m512i wv[NB];
  for (int b = 0; b < NB; ++b) wv[b] = _mm512_loadu_si512(base + (k4 + 1) * kSumBytes + b * 64);
  for (int r = 0; r < MR; ++r) {
    int32_t x4;
    std::memcpy(&x4, x + r * in + 4 * k4, 4);
    const __m512i xv = _mm512_set1_epi32(x4);
    for (int b = 0; b < NB; ++b) acc[r][b] = dpbusd(acc[r][b], wv[b], xv);
  }
}

// MR rows by NB blocks of 16 channels of one panel, from channel_base `base`. The weights are
// vpdpbusd's unsigned operand (w + 128) and x its signed one, broadcast 4 bytes at a time, so
// acc = sum_k w x + 128 sum_k x: the second term is taken off with the row sums, the zero
// point's with the packed constants. With few rows (the decoder's) the k steps alternate between
// KS sets of accumulators, so that enough independent vpdpbusd chains hide its latency; int32
// sums, so the split changes no result.
template <int MR, int NB>
PMT_VNNI inline void tile(const int8_t* x, size_t in, const uint8_t* base, const float* scale,
                          const GemmQs8Output& output, int8_t* y, size_t ld_y, size_t cols) {
  constexpr int KS = MR * NB >= 8 ? 1 : MR * NB >= 4 ? 2 : 4;
  __m512i acc[KS][MR][NB];
  const __m512i ones = _mm512_set1_epi8(1);
  for (int r = 0; r < MR; ++r) {
    // sum_k x[r, k] * 128, by vpdpbusd against bytes of 1 (in % 4 == 0; tails masked).
    __m512i sum = _mm512_setzero_si512();
    const int8_t* row = x + r * in;
    size_t k = 0;
    for (; k + 64 <= in; k += 64) sum = dpbusd(sum, ones, _mm512_loadu_si512(row + k));
    if (k < in) sum = dpbusd(sum, ones, _mm512_maskz_loadu_epi8(~0ull >> (64 - (in - k)), row + k));
    const __m512i row_term = _mm512_set1_epi32(-128 * _mm512_reduce_add_epi32(sum));
    for (int b = 0; b < NB; ++b) {
      acc[0][r][b] = _mm512_add_epi32(row_term, _mm512_loadu_si512(base + b * 64));
      for (int s = 1; s < KS; ++s) acc[s][r][b] = _mm512_setzero_si512();
    }
  }
  const size_t k4s = in / 4;
  size_t k4 = 0;
  for (; k4 + KS <= k4s; k4 += KS)
    for (int s = 0; s < KS; ++s) k_step<MR, NB>(acc[s], x, in, base, k4 + s);
  for (; k4 < k4s; ++k4) k_step<MR, NB>(acc[0], x, in, base, k4);
  for (int s = 1; s < KS; ++s)
    for (int r = 0; r < MR; ++r)
      for (int b = 0; b < NB; ++b) acc[0][r][b] = _mm512_add_epi32(acc[0][r][b], acc[s][r][b]);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(output.min - output.zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(output.max - output.zero_point));
  const __m512i zero_point = _mm512_set1_epi32(output.zero_point);
  for (int b = 0; b < NB; ++b) {
    const size_t n = std::min(kBlock, cols - b * kBlock);
    const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1);
    const __m512 s = _mm512_maskz_loadu_ps(mask, scale + b * kBlock);
    for (int r = 0; r < MR; ++r) {
      __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[0][r][b]), s);
      v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), zero_point);  // MXCSR: to nearest even
      _mm512_mask_cvtsepi32_storeu_epi8(y + r * ld_y + b * kBlock, mask, q);
    }
  }
}

// Tiles of 4 blocks (a whole panel, one stream of weights) for 1-2 rows, else of 2; col0 % 64 ==
// 0, so that no tile crosses a panel.
template <int MR>
PMT_VNNI void row_tile(const int8_t* x, size_t in, const uint8_t* packed, size_t col0, size_t cols, size_t out,
                       const GemmQs8Output& output, int8_t* y) {
  size_t c = col0;
  const size_t end = col0 + cols;
  if constexpr (MR <= 2) {
    for (; c + 4 * kBlock <= end; c += 4 * kBlock)
      tile<MR, 4>(x, in, channel_base(packed, in, c), output.scale + c, output, y + c, out, 4 * kBlock);
  }
  for (; c + 2 * kBlock <= end; c += 2 * kBlock)
    tile<MR, 2>(x, in, channel_base(packed, in, c), output.scale + c, output, y + c, out, 2 * kBlock);
  for (; c < end; c += kBlock)
    tile<MR, 1>(x, in, channel_base(packed, in, c), output.scale + c, output, y + c, out, std::min(kBlock, end - c));
}

}  // namespace

PMT_VNNI void gemm_qs8_vnni(const int8_t* x, size_t row0, size_t rows, size_t col0, size_t cols, size_t out,
                            size_t in, const uint8_t* packed, const GemmQs8Output& output, int8_t* y) {
  // 8 rows x 32 channels: 16 accumulators, 2 weight vectors and the broadcast of 32 registers.
  constexpr size_t kRows = 8;
  size_t r = row0;
  const size_t end = row0 + rows;
  for (; r + kRows <= end; r += kRows)
    row_tile<kRows>(x + r * in, in, packed, col0, cols, out, output, y + r * out);
  const int8_t* xr = x + r * in;
  int8_t* yr = y + r * out;
  switch (end - r) {
    case 7: row_tile<7>(xr, in, packed, col0, cols, out, output, yr); break;
    case 6: row_tile<6>(xr, in, packed, col0, cols, out, output, yr); break;
    case 5: row_tile<5>(xr, in, packed, col0, cols, out, output, yr); break;
    case 4: row_tile<4>(xr, in, packed, col0, cols, out, output, yr); break;
    case 3: row_tile<3>(xr, in, packed, col0, cols, out, output, yr); break;
    case 2: row_tile<2>(xr, in, packed, col0, cols, out, output, yr); break;
    case 1: row_tile<1>(xr, in, packed, col0, cols, out, output, yr); break;
    default: break;
  }
}

#else

bool cpu_has_avx512_vnni() { return false; }

void gemm_qs8_vnni(const int8_t*, size_t, size_t, size_t, size_t, size_t, size_t, const uint8_t*,
                   const GemmQs8Output&, int8_t*) {
  std::abort();  // callers check cpu_has_avx512_vnni()
}

#endif

}  // namespace pmt::kernels
