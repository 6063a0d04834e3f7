// Internals of the bfloat16 GEMM (gemm.h), shared by gemm.cc (rounding, packing, threads),
// gemm_amx.cc and gemm_avx512bf16.cc (the two kernels) and the tests.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "train/ops/gemm.h"

namespace pmt::train::bf16 {

// One tile: 16 rows of 64 bytes, i.e. 16 x 32 bfloat16 of A, or 16 k-pairs x 16 columns x 2 of B.
inline constexpr int kTileRows = 16;
inline constexpr int kKBlock = 32;
inline constexpr int kTileElems = kTileRows * kKBlock;

inline int round_up(int x, int to) { return (x + to - 1) / to * to; }
inline int panels(int x) { return (x + kTileRows - 1) / kTileRows; }

// fp32 -> bfloat16, round to nearest even (overflow goes to infinity). NaN stays NaN (quieted,
// sign and top payload bits kept). Subnormals become zero of the same sign: TDPBF16PS reads
// subnormal inputs as zero anyway, and so VCVTNEPS2BF16 would be a drop-in for this function.
inline uint16_t round_to_bf16(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t magnitude = u & 0x7FFFFFFFu;
  uint32_t r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  r = magnitude > 0x7F800000u ? (u >> 16) | 0x40u : r;
  r = magnitude < 0x00800000u ? (u >> 16) & 0x8000u : r;
  return static_cast<uint16_t>(r);
}
inline float bf16_to_float(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

// Packed layouts, kp = k rounded up to 32, padding (rows >= m, columns >= n, k >= k) zero:
// A: op(a) [m, k] in panels of 16 rows, panel p = kp / 32 tiles of [16 rows][32 k], so element
//    (i, kk) is at (i / 16) * 16 * kp + (kk / 32) * 512 + (i % 16) * 32 + kk % 32.
// B: op(b) [k, n] in panels of 16 columns, panel q = kp / 32 tiles of [16 k-pairs][16 columns][2]
//    (the pair layout TDPBF16PS and VDPBF16PS read: one k-pair of 16 columns is 64 bytes), so element (kk, j) is at
//    (j / 16) * 16 * kp + (kk / 32) * 512 + (kk % 32 / 2) * 32 + (j % 16) * 2 + kk % 2.
// Each packs the panels [panel_begin, panel_end) only, so threads can share the work.
void pack_a(uint16_t* dst, const float* a, int lda, bool trans, int m, int k, int panel_begin, int panel_end);
void pack_b(uint16_t* dst, const float* b, int ldb, bool trans, int k, int n, int panel_begin, int panel_end);

// gemm() on the given kernel whatever the size (gemm() sends small products to OpenBLAS): packs
// into the calling thread's buffers, splits large products over the GEMM threads. The kernel must
// be available (bf16_kernel() >= kernel; a CPU with AMX has AVX512-BF16 too).
void gemm_bf16(Bf16Kernel kernel, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
               int lda, const float* b, int ldb, float beta, float* c, int ldc);

// c = alpha * A B + beta * c over the row panels [a_begin, a_end) and column panels
// [b_begin, b_end) of the packed A and B (k padded to kp); beta = 0 never reads c.
// gemm_amx.cc and gemm_avx512bf16.cc; the *_built() are false when the compiler could not build them.
bool amx_kernel_built();
void amx_multiply(const uint16_t* pa, const uint16_t* pb, int kp, int m, int n, int a_begin, int a_end, int b_begin,
                  int b_end, float alpha, float beta, float* c, int ldc);
bool avx512_kernel_built();
void avx512_multiply(const uint16_t* pa, const uint16_t* pb, int kp, int m, int n, int a_begin, int a_end,
                     int b_begin, int b_end, float alpha, float beta, float* c, int ldc);

// The walk both kernels share, blocked for the caches: k in chunks of 512, so that a pair of A
// panels (32 KiB) stays in L1 while it meets the B panels of a column chunk (512 KiB, in L2); the
// result in blocks of 2 x 2 panels (fewer at the edges). block(two_a, two_b, a, b, panel, kblocks,
// c, ldc, rows, cols, alpha, beta) computes one block over kblocks k tiles, A tiles from a (and
// a + panel), B tiles from b (and b + panel). The chunks' partial sums add up in c in fp32 (the
// first applies beta, the others add on).
template <typename Block>
inline void multiply_blocked(Block&& block, const uint16_t* pa, const uint16_t* pb, int kp, int m, int n, int a_begin,
                             int a_end, int b_begin, int b_end, float alpha, float beta, float* c, int ldc) {
  const size_t panel = static_cast<size_t>(kTileRows) * kp;
  constexpr int kChunkBlocks = 16;
  const int b_chunk = std::max(2, (512 << 10) / (kChunkBlocks * kTileElems * static_cast<int>(sizeof(uint16_t))));
  for (int kb0 = 0; kb0 < kp / kKBlock; kb0 += kChunkBlocks) {
    const int kblocks = std::min(kChunkBlocks, kp / kKBlock - kb0);
    const float chunk_beta = kb0 == 0 ? beta : 1.f;
    for (int b0 = b_begin; b0 < b_end; b0 += b_chunk) {
      const int b1 = std::min(b_end, b0 + b_chunk);
      for (int i = a_begin; i < a_end; i += 2) {
        const int row = i * kTileRows;
        const uint16_t* a = pa + i * panel + static_cast<size_t>(kb0) * kTileElems;
        for (int j = b0; j < b1; j += 2) {
          const int col = j * kTileRows;
          block(i + 1 < a_end, j + 1 < b1, a, pb + j * panel + static_cast<size_t>(kb0) * kTileElems, panel, kblocks,
                c + static_cast<long>(row) * ldc + col, ldc, m - row, n - col, alpha, chunk_beta);
        }
      }
    }
  }
}

}  // namespace pmt::train::bf16
