#include "kernels/quantize.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "kernels/simd.h"

namespace pmt::kernels {

PMT_MULTIVERSION
void PMT_KERNEL(quantize_qs8)(const float* __restrict x, int8_t* __restrict y, size_t n, float scale,
                  int32_t zero_point) {
  const float inv_scale = 1.0f / scale;
  // Clamping before rounding keeps the value small enough for the add-2^23 rounding trick
  // (round to nearest even in the default mode, like lrintf) and lets the loop vectorize.
  const float lo = static_cast<float>(-128 - zero_point);
  const float hi = static_cast<float>(127 - zero_point);
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  for (size_t i = 0; i < n; ++i) {
    float v = x[i] * inv_scale;
    // Two selects rather than a nested ?:, whose conditional second comparison GCC will not
    // if-convert (so not vectorize) under the default -ftrapping-math.
    v = v > lo ? v : lo;  // in this order, NaN (an overflowed activation) becomes lo:
    v = v < hi ? v : hi;  // converting NaN to int is undefined
    const float rounded = (v + kRound) - kRound;
    y[i] = static_cast<int8_t>(static_cast<int32_t>(rounded) + zero_point);
  }
}

PMT_MULTIVERSION
void PMT_KERNEL(dequantize_qs8)(const int8_t* __restrict x, float* __restrict y, size_t n, float scale,
                    int32_t zero_point) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i] - zero_point) * scale;
}

PMT_MULTIVERSION
void PMT_KERNEL(dequantize_qs8_channels)(const int8_t* __restrict x, const float* __restrict step,
                             const float* __restrict offset, bool relu, float* __restrict y, size_t rows,
                             size_t cols) {
  const float floor = relu ? 0.0f : -INFINITY;
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* __restrict xr = x + r * cols;
    float* __restrict yr = y + r * cols;
    for (size_t c = 0; c < cols; ++c) {
      const float v = static_cast<float>(xr[c]) * step[c] + offset[c];
      yr[c] = v > floor ? v : floor;
    }
  }
}

PMT_MULTIVERSION
void PMT_KERNEL(dequantize_row_qc8)(const int8_t* __restrict w, float scale, float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(w[i]) * scale;
}

#if !defined(PMT_NEON_COPY)  // the references and the rest are compiled once
// Adding 0x7FFF plus the lowest kept bit carries into the kept half exactly when the dropped half
// is above one half, or equal to it with an odd kept half. A plain loop: g++ vectorizes it, and
// it runs once per cached row, far from the attention's inner loops.
void round_bf16(const float* __restrict x, uint16_t* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t u = std::bit_cast<uint32_t>(x[i]);
    y[i] = static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  }
}

void round_bf16_ref(const float* x, uint16_t* y, size_t n) {
  const auto value = [](uint32_t h) { return static_cast<double>(std::bit_cast<float>(h << 16)); };
  for (size_t i = 0; i < n; ++i) {
    const uint32_t down = std::bit_cast<uint32_t>(x[i]) >> 16, up = down + 1;  // toward 0 and away from it
    const double d_down = std::fabs(x[i] - value(down)), d_up = std::fabs(value(up) - x[i]);
    y[i] = static_cast<uint16_t>(d_down < d_up || (d_down == d_up && down % 2 == 0) ? down : up);
  }
}

void quantize_qs8_ref(const float* x, int8_t* y, size_t n, float scale, int32_t zero_point) {
  const float inv_scale = 1.0f / scale;
  for (size_t i = 0; i < n; ++i) {
    const float q = std::nearbyint(x[i] * inv_scale) + static_cast<float>(zero_point);
    y[i] = static_cast<int8_t>(std::clamp(q, -128.0f, 127.0f));
  }
}

// The references compute in double and round once: the exact result the kernels' single float
// multiply must match, and within an ulp of their multiply-add.
void dequantize_qs8_ref(const int8_t* x, float* y, size_t n, float scale, int32_t zero_point) {
  for (size_t i = 0; i < n; ++i)
    y[i] = static_cast<float>((static_cast<double>(x[i]) - zero_point) * scale);
}

void dequantize_qs8_channels_ref(const int8_t* x, const float* step, const float* offset, bool relu, float* y,
                                 size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const double v = static_cast<double>(x[r * cols + c]) * step[c] + offset[c];
      y[r * cols + c] = static_cast<float>(relu ? std::max(v, 0.0) : v);
    }
}

void dequantize_row_qc8_ref(const int8_t* w, float scale, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<double>(w[i]) * scale);
}
#endif

}  // namespace pmt::kernels
