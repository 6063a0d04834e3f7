// Conversions between float and int8 at the edges of the XNNPACK qs8 operators, and from float
// to bfloat16 for the decoder's key/value caches.
// qs8: asymmetric per-tensor int8, real = (q - zero_point) * scale.
// qc8: symmetric int8 with one scale per output channel (row), real = q * scale.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::kernels {

// y[i] = clamp(round_half_even(x[i] * (1 / scale)) + zero_point, -128, 127).
// The same arithmetic as XNNPACK's f32->qs8 convert operator (multiply by the reciprocal scale,
// clamp, round to nearest with ties to even), so both paths give identical bytes. scale > 0.
void quantize_qs8(const float* x, int8_t* y, size_t n, float scale, int32_t zero_point);
// y[i] = (x[i] - zero_point) * scale, as XNNPACK's qs8->f32 convert.
void dequantize_qs8(const int8_t* x, float* y, size_t n, float scale, int32_t zero_point);
// One scale and offset per channel (column) after a GEMM whose output channels were given
// their own steps: for x [rows, cols], y[r,c] = x[r,c] * step[c] + offset[c], then max(0, .) if
// relu.
void dequantize_qs8_channels(const int8_t* x, const float* step, const float* offset, bool relu, float* y,
                             size_t rows, size_t cols);
// One row of a per-row (qc8) int8 table: y[i] = w[i] * scale.
void dequantize_row_qc8(const int8_t* w, float scale, float* y, size_t n);

// bfloat16 (the high 16 bits of a float, as uint16_t): y[i] = x[i] rounded to nearest, ties to
// even. Finite x whose magnitude rounds below bfloat16's largest finite value (about 3.39e38).
void round_bf16(const float* x, uint16_t* y, size_t n);

// Plain scalar references (std::nearbyint under the default rounding mode; round_bf16_ref picks
// the nearer of the two neighbouring bfloat16 values in double arithmetic).
void round_bf16_ref(const float* x, uint16_t* y, size_t n);
void quantize_qs8_ref(const float* x, int8_t* y, size_t n, float scale, int32_t zero_point);
void dequantize_qs8_ref(const int8_t* x, float* y, size_t n, float scale, int32_t zero_point);
void dequantize_qs8_channels_ref(const int8_t* x, const float* step, const float* offset, bool relu, float* y,
                                 size_t rows, size_t cols);
void dequantize_row_qc8_ref(const int8_t* w, float scale, float* y, size_t n);

}  // namespace pmt::kernels
