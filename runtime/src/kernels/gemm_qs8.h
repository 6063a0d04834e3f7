// The int8 GEMM of a Linear layer on x86-64 CPUs with AVX-512 VNNI. Debian's XNNPACK (February
// 2022) has no VNNI kernels: on such CPUs its qc8 operator runs vpmaddwd kernels, 32 byte
// products per instruction, where vpdpbusd does 64. The arithmetic is the qc8 operator's (exact
// int32 sums, then fp32 requantization with ties to even), so the output bytes are the same:
//   y[r, c] = clamp(round(float(sum_k (x[r, k] - x_zero_point) * w[c, k] + bias[c]) * scale[c])
//                   + y_zero_point, y_min, y_max)
// with scale[c] = (x_scale * w_scale[c]) / y_scale computed in float, as XNNPACK does.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::kernels {

// The requantization of one GEMM: per-channel scales, output zero point and clamp.
struct GemmQs8Output {
  const float* scale;  // [out]
  int32_t zero_point, min, max;
};

// Weights in the order gemm_qs8_vnni reads them. in % 4 == 0. Panels of 64 output channels
// (the last padded with zero weights), each the constant part of its sums, bias[c] -
// x_zero_point * sum_k w[c, k] (int32 [64]), then [in / 4][64][4] bytes w[c, k] + 128 (vpdpbusd's
// unsigned operand): one stream from the panel's start, so a decoder step's row, which reads
// each weight once, finds the next bytes prefetched.
size_t gemm_qs8_packed_size(size_t out, size_t in);
// w: [out, in] int8, bias: [out] int32 or nullptr; packed: gemm_qs8_packed_size bytes.
void gemm_qs8_pack(const int8_t* w, const int32_t* bias, size_t out, size_t in, int32_t x_zero_point,
                   uint8_t* packed);

// Whether this CPU and OS run gemm_qs8_vnni (AVX-512 F, BW and VNNI with the ZMM state
// enabled); false everywhere but x86-64. PMT_NO_VNNI=1 in the environment answers false, so
// that the XNNPACK path can be run and compared on the same machine.
bool cpu_has_avx512_vnni();

// y rows [row0, row0 + rows) and channels [col0, col0 + cols) of y = x W^T as above: x [., in]
// int8 with leading dimension in, y [., out] int8 with leading dimension out. col0 % 64 == 0.
// Only where cpu_has_avx512_vnni(); the tiles of one product can run on different threads.
void gemm_qs8_vnni(const int8_t* x, size_t row0, size_t rows, size_t col0, size_t cols, size_t out, size_t in,
                   const uint8_t* packed, const GemmQs8Output& output, int8_t* y);

// The plain scalar reference, on unpacked weights (bias: [out] int32 or nullptr).
void gemm_qs8_ref(const int8_t* x, size_t rows, size_t out, size_t in, const int8_t* w, const int32_t* bias,
                  int32_t x_zero_point, const GemmQs8Output& output, int8_t* y);

}  // namespace pmt::kernels
