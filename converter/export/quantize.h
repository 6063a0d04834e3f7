// Int8 quantization math used by the exporter: per-row symmetric weights and affine activation
// parameters from a calibrated range. Pure functions, no I/O.
#pragma once

#include <cstdint>

#include "pocketmt/model_file.h"

namespace pmt::quant {

// Symmetric per-output-channel quantization of a row-major [rows, cols] matrix:
// scales[r] = max_c |w[r, c]| / 127 (1 for an all-zero row, any positive value would do) and
// q[r, c] = clamp(round_half_away(w[r, c] / scales[r]), -127, 127), so |scales[r] * q - w| is at
// most scales[r] / 2. `q` holds rows * cols values, `scales` rows values.
void quantize_rows(const float* w, int64_t rows, int64_t cols, int8_t* q, float* scales);

// Affine int8 parameters covering the real range [lo, hi], widened to contain 0 so that 0 (ReLU
// output, padding) is exact: scale = (hi - lo) / 255 and zero_point = round(-128 - lo / scale),
// clamped to [-128, 127]. A one-signed range thus spends all 256 levels on its sign (post-ReLU:
// zero_point = -128). A degenerate range (hi == lo == 0) gives scale 1 / 255.
ActQuant act_quant_from_range(float lo, float hi);

}  // namespace pmt::quant
