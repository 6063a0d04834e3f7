#include "kernels/quantize.h"

#include <algorithm>
#include <cmath>

#include "kernels/simd.h"

namespace pmt::kernels {

PMT_MULTIVERSION
void quantize_qs8(const float* __restrict x, int8_t* __restrict y, size_t n, float scale,
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
void dequantize_qs8(const int8_t* __restrict x, float* __restrict y, size_t n, float scale,
                    int32_t zero_point) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i] - zero_point) * scale;
}

PMT_MULTIVERSION
void dequantize_qs8_channels(const int8_t* __restrict x, const float* __restrict step,
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
void quantize_residual_qs8(const float* __restrict x, int8_t* __restrict q, size_t n, float scale,
                           int32_t zero_point, float refine) {
  const float inv_fine = refine / scale;
  const float lo = static_cast<float>(-128 - zero_point);
  const float hi = static_cast<float>(127 - zero_point);
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23, as in quantize_qs8
  for (size_t i = 0; i < n; ++i) {
    const float r = x[i] - static_cast<float>(q[i] - zero_point) * scale;
    float v = r * inv_fine;
    v = v > lo ? v : lo;  // in this order, NaN (an overflowed activation) becomes lo:
    v = v < hi ? v : hi;  // converting NaN to int is undefined
    const float rounded = (v + kRound) - kRound;
    q[i] = static_cast<int8_t>(static_cast<int32_t>(rounded) + zero_point);
  }
}

PMT_MULTIVERSION
void dequantize_two_pass(const int8_t* __restrict x1, const int8_t* __restrict x2, const float* __restrict step,
                         const float* __restrict offset, const float* __restrict bias, float refine, bool relu,
                         float* __restrict y, size_t rows, size_t cols) {
  const float inv_refine = 1.0f / refine;
  const float floor = relu ? 0.0f : -INFINITY;
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* __restrict a = x1 + r * cols;
    const int8_t* __restrict b = x2 + r * cols;
    float* __restrict yr = y + r * cols;
    for (size_t c = 0; c < cols; ++c) {
      const float coarse = static_cast<float>(a[c]) * step[c] + offset[c];
      const float fine = (static_cast<float>(b[c]) * step[c] + offset[c] - bias[c]) * inv_refine;
      // q in [-127, 126] for both passes, one unsigned comparison each (q + 127 < 254), joined
      // with a bitwise and: no branch, so the loop vectorizes.
      const unsigned ua = static_cast<unsigned>(a[c] + 127), ub = static_cast<unsigned>(b[c] + 127);
      const float keep = static_cast<float>((ua < 254u) & (ub < 254u));
      const float v = coarse + keep * fine;
      yr[c] = v > floor ? v : floor;
    }
  }
}

PMT_MULTIVERSION
void dequantize_row_qc8(const int8_t* __restrict w, float scale, float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(w[i]) * scale;
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

void quantize_residual_qs8_ref(const float* x, int8_t* q, size_t n, float scale, int32_t zero_point, float refine) {
  for (size_t i = 0; i < n; ++i) {
    const double r = double{x[i]} - (static_cast<double>(q[i]) - zero_point) * scale;
    const double v = std::nearbyint(r * refine / scale) + zero_point;
    q[i] = static_cast<int8_t>(std::clamp(v, -128.0, 127.0));
  }
}

void dequantize_two_pass_ref(const int8_t* x1, const int8_t* x2, const float* step, const float* offset,
                             const float* bias, float refine, bool relu, float* y, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const size_t i = r * cols + c;
      double v = static_cast<double>(x1[i]) * step[c] + offset[c];
      if (x1[i] != 127 && x1[i] != -128 && x2[i] != 127 && x2[i] != -128) v += (static_cast<double>(x2[i]) * step[c] + offset[c] - bias[c]) / refine;
      y[i] = static_cast<float>(relu ? std::max(v, 0.0) : v);
    }
}

void dequantize_row_qc8_ref(const int8_t* w, float scale, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<double>(w[i]) * scale);
}

}  // namespace pmt::kernels
