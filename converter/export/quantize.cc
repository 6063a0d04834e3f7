#include "export/quantize.h"

#include <algorithm>
#include <cmath>

namespace pmt::quant {

void quantize_rows(const float* w, int64_t rows, int64_t cols, int8_t* q, float* scales) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = w + r * cols;
    float max_abs = 0.f;
    for (int64_t c = 0; c < cols; ++c) max_abs = std::max(max_abs, std::fabs(row[c]));
    const float scale = max_abs > 0.f ? max_abs / 127.f : 1.f;
    scales[r] = scale;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = std::clamp(std::round(row[c] / scale), -127.f, 127.f);
      q[r * cols + c] = static_cast<int8_t>(v);
    }
  }
}

ActQuant act_quant_from_range(float lo, float hi) {
  lo = std::min(lo, 0.f);
  hi = std::max(hi, 0.f);
  const float scale = hi > lo ? (hi - lo) / 255.f : 1.f / 255.f;
  const float zp = std::clamp(std::round(-128.f - lo / scale), -128.f, 127.f);
  return ActQuant{scale, static_cast<int32_t>(zp)};
}

}  // namespace pmt::quant
