// The AVX512-BF16 kernel of the bf16 GEMM, for CPUs without AMX (Cooper Lake, AMD Zen 4 and
// later). The only file compiled with the AVX512-BF16 flags (converter/CMakeLists.txt), and only
// ever called once bf16_kernel() said kAvx512 or better. It reads the packed layouts of
// gemm_bf16.h as they are: a k-pair of a B panel is one 64-byte vector, the same k-pair of an A
// row one 32-bit word, broadcast; VDPBF16PS adds both products of the pair in fp32.
#include "train/ops/gemm_bf16.h"

#if defined(__AVX512F__) && defined(__AVX512BF16__)
#include <immintrin.h>

#include <cstring>

namespace pmt::train::bf16 {

namespace {

constexpr int kRows = 8;  // rows per register block: 8 x 2 accumulators + 2 B vectors + 1 broadcast

// c[rows, cols] = alpha * A B + beta * c for kRows rows of an A panel (a: the first row's place in
// the panel's first tile) and NB B panels, over kblocks k tiles; only the valid rows and columns
// are stored.
template <int NB>
void rows_block(const uint16_t* a, const uint16_t* b, size_t panel, int kblocks, float* c, int ldc, int rows, int cols,
                float alpha, float beta) {
  __m512 acc[kRows][NB];
  for (auto& row : acc) {
    for (__m512& v : row) v = _mm512_setzero_ps();
  }
  for (int kb = 0; kb < kblocks; ++kb, a += kTileElems, b += kTileElems) {
    for (int p = 0; p < kKBlock / 2; ++p) {
      __m512bh bv[NB];
      for (int q = 0; q < NB; ++q) bv[q] = (__m512bh)_mm512_load_si512(b + q * panel + p * 2 * kTileRows);
      for (int r = 0; r < kRows; ++r) {
        int32_t pair;
        std::memcpy(&pair, a + r * kKBlock + 2 * p, sizeof pair);
        const __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
        for (int q = 0; q < NB; ++q) acc[r][q] = _mm512_dpbf16_ps(acc[r][q], av, bv[q]);
      }
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  for (int r = 0; r < std::min(rows, kRows); ++r) {
    for (int q = 0; q < NB; ++q) {
      const int valid = cols - q * kTileRows;
      const __mmask16 mask = valid >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << valid) - 1);
      float* out = c + static_cast<long>(r) * ldc + q * kTileRows;
      __m512 v = _mm512_mul_ps(va, acc[r][q]);
      if (beta != 0.f) v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(mask, out)));
      _mm512_mask_storeu_ps(out, mask, v);
    }
  }
}

}  // namespace

bool avx512_kernel_built() { return true; }

void avx512_multiply(const uint16_t* pa, const uint16_t* pb, int kp, int m, int n, int a_begin, int a_end,
                     int b_begin, int b_end, float alpha, float beta, float* c, int ldc) {
  auto block = [](bool two_a, bool two_b, const uint16_t* a, const uint16_t* b, size_t panel, int kblocks, float* c,
                  int ldc, int rows, int cols, float alpha, float beta) {
    const int block_rows = std::min(rows, (two_a ? 2 : 1) * kTileRows);
    for (int r0 = 0; r0 < block_rows; r0 += kRows) {
      const uint16_t* a_rows = a + (r0 / kTileRows) * panel + (r0 % kTileRows) * kKBlock;
      float* out = c + static_cast<long>(r0) * ldc;
      if (two_b) {
        rows_block<2>(a_rows, b, panel, kblocks, out, ldc, block_rows - r0, cols, alpha, beta);
      } else {
        rows_block<1>(a_rows, b, panel, kblocks, out, ldc, block_rows - r0, cols, alpha, beta);
      }
    }
  };
  multiply_blocked(block, pa, pb, kp, m, n, a_begin, a_end, b_begin, b_end, alpha, beta, c, ldc);
}

}  // namespace pmt::train::bf16

#else  // a compiler without the AVX512-BF16 intrinsics: bf16_kernel() never says kAvx512

#include <cstdlib>

namespace pmt::train::bf16 {
bool avx512_kernel_built() { return false; }
void avx512_multiply(const uint16_t*, const uint16_t*, int, int, int, int, int, int, int, float, float, float*, int) {
  std::abort();
}
}  // namespace pmt::train::bf16

#endif
