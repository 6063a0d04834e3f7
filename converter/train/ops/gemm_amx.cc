// The AMX tile kernel of the bf16 GEMM. The only file compiled with the AMX flags
// (converter/CMakeLists.txt), and only ever called once bf16_kernel() said kAmx.
#include "train/ops/gemm_bf16.h"

#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__AVX512F__)
#include <immintrin.h>

#include <algorithm>

namespace pmt::train::bf16 {

namespace {

// Palette 1, every tile used as 16 rows x 64 bytes: tiles 0-3 accumulate a 2 x 2 block of
// 16 x 16 fp32 results, 4-5 hold two A tiles, 6-7 two B tiles.
struct alignas(64) TileConfig {
  uint8_t palette_id = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// The tile configuration is per thread (XSAVE state), so every thread that multiplies loads it once.
thread_local bool t_tiles_configured = false;

void configure_tiles() {
  if (t_tiles_configured) return;
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = kKBlock * sizeof(uint16_t);
    cfg.rows[t] = kTileRows;
  }
  _tile_loadconfig(&cfg);
  t_tiles_configured = true;
}

// c[rows, cols] = alpha * acc + beta * c for the valid part of one 16 x 16 result tile.
void store_tile(const float* acc, float* c, int ldc, int rows, int cols, float alpha, float beta) {
  const __mmask16 mask = cols >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << cols) - 1);
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  for (int r = 0; r < rows; ++r) {
    float* out = c + static_cast<long>(r) * ldc;
    __m512 v = _mm512_mul_ps(va, _mm512_load_ps(acc + r * 16));
    if (beta != 0.f) v = _mm512_add_ps(v, _mm512_mul_ps(vb, _mm512_maskz_loadu_ps(mask, out)));
    _mm512_mask_storeu_ps(out, mask, v);
  }
}

// One block of MA x NB result tiles (MA, NB in {1, 2}) over the whole k: A tiles from the panel at
// a (and a + panel), B tiles from b (and b + panel).
template <int MA, int NB>
void block(const uint16_t* a, const uint16_t* b, size_t panel, int kblocks, float* c, int ldc, int rows, int cols,
           float alpha, float beta) {
  _tile_zero(0);
  if constexpr (NB > 1) _tile_zero(1);
  if constexpr (MA > 1) _tile_zero(2);
  if constexpr (MA > 1 && NB > 1) _tile_zero(3);
  constexpr int kStride = kKBlock * sizeof(uint16_t);
  for (int kb = 0; kb < kblocks; ++kb, a += kTileElems, b += kTileElems) {
    _tile_loadd(4, a, kStride);
    _tile_loadd(6, b, kStride);
    _tile_dpbf16ps(0, 4, 6);
    if constexpr (NB > 1) {
      _tile_loadd(7, b + panel, kStride);
      _tile_dpbf16ps(1, 4, 7);
    }
    if constexpr (MA > 1) {
      _tile_loadd(5, a + panel, kStride);
      _tile_dpbf16ps(2, 5, 6);
      if constexpr (NB > 1) _tile_dpbf16ps(3, 5, 7);
    }
  }
  alignas(64) float acc[kTileRows * 16];
  auto flush = [&](int i, int j) {
    store_tile(acc, c + static_cast<long>(i) * 16 * ldc + j * 16, ldc, std::min(16, rows - 16 * i),
               std::min(16, cols - 16 * j), alpha, beta);
  };
  _tile_stored(0, acc, 64);
  flush(0, 0);
  if constexpr (NB > 1) {
    _tile_stored(1, acc, 64);
    flush(0, 1);
  }
  if constexpr (MA > 1) {
    _tile_stored(2, acc, 64);
    flush(1, 0);
  }
  if constexpr (MA > 1 && NB > 1) {
    _tile_stored(3, acc, 64);
    flush(1, 1);
  }
}

}  // namespace

bool amx_kernel_built() { return true; }

void amx_multiply(const uint16_t* pa, const uint16_t* pb, int kp, int m, int n, int a_begin, int a_end, int b_begin,
                  int b_end, float alpha, float beta, float* c, int ldc) {
  configure_tiles();
  auto tiles = [](bool two_a, bool two_b, const uint16_t* a, const uint16_t* b, size_t panel, int kblocks, float* c,
                  int ldc, int rows, int cols, float alpha, float beta) {
    if (two_a && two_b) {
      block<2, 2>(a, b, panel, kblocks, c, ldc, rows, cols, alpha, beta);
    } else if (two_a) {
      block<2, 1>(a, b, panel, kblocks, c, ldc, rows, cols, alpha, beta);
    } else if (two_b) {
      block<1, 2>(a, b, panel, kblocks, c, ldc, rows, cols, alpha, beta);
    } else {
      block<1, 1>(a, b, panel, kblocks, c, ldc, rows, cols, alpha, beta);
    }
  };
  multiply_blocked(tiles, pa, pb, kp, m, n, a_begin, a_end, b_begin, b_end, alpha, beta, c, ldc);
}

}  // namespace pmt::train::bf16

#else  // a compiler without the AMX intrinsics: amx_bf16_available() stays false

#include <cstdlib>

namespace pmt::train::bf16 {
bool amx_kernel_built() { return false; }
void amx_multiply(const uint16_t*, const uint16_t*, int, int, int, int, int, int, int, float, float, float*, int) {
  std::abort();
}
}  // namespace pmt::train::bf16

#endif
