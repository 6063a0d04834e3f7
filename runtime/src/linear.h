// One Linear layer, y = x W^T + b with W [out, in], as an XNNPACK operator created at load.
// Both precisions use a 1x1 convolution, which XNNPACK runs as a plain GEMM over the rows:
// - fp32 weights: xnn_convolution2d_nhwc_f32. (The snapshot's f32 fully-connected operator has a
//   multi-threading bug on kernels with SR > 1, fixed upstream in May 2022; this path avoids it.)
// - int8 weights: xnn_convolution2d_nhwc_qc8, the only operator of the snapshot with one weight
//   scale per output channel. Activations are quantized with the static scale and zero point
//   calibrated by the exporter; the int32 bias is b / (input_scale * weight_scale[c]), rounded.
//   When the file carries per-channel output ranges, each output channel c gets its own step
//   a_c = (hi_c - lo_c) / 254 around its centre m_c: a Linear is linear, so the operator is
//   created with weight scales weight_scale[c] / a_c, bias (b_c - m_c) and output scale 1, and
//   the output is read back as q * a_c + m_c. The step of most channels is then several times
//   finer than one shared step set by the widest channel.
//   On CPUs with AVX-512 VNNI the same product runs on kernels/gemm_qs8 instead (XNNPACK's
//   snapshot has no VNNI kernels there), with the same output bytes; no XNNPACK operator is
//   created then.
// Setting up and running the operator allocates nothing.
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/gemm_qs8.h"
#include "pocketmt/model_file.h"

namespace pmt::rt {

class Linear {
 public:
  struct Options {
    bool relu = false;  // fuse max(0, y) into the operator's output clamp
    // int8 only: quantize the input with this instead of the file's calibration, so that the
    // int8 output of a previous layer can be consumed as is (see run_q).
    const ActQuant* input_quant = nullptr;
  };

  Linear() = default;
  ~Linear();
  Linear(Linear&& other) noexcept;
  Linear& operator=(Linear&& other) noexcept;

  // weight: [out, in], F32 or I8 (with per-row scales and activation quantization).
  // bias: [out] floats or nullptr. Returns an empty string or why XNNPACK refused.
  std::string create(const TensorView& weight, const float* bias, const Options& options);

  size_t in() const { return in_; }
  size_t out() const { return out_; }
  bool quantized() const { return quantized_; }
  // int8: the activation quantization of the input and of the (clamped) output. With
  // per-channel output ranges the output is not a qs8 tensor of one scale (chains_int8() is
  // false), so another int8 operator cannot read it as is.
  const ActQuant& input_quant() const { return input_quant_; }
  const ActQuant& output_quant() const { return output_quant_; }
  bool chains_int8() const { return quantized_ && channel_step_.empty(); }

  // y [rows, out] = x [rows, in] W^T + b, floats in and out. For int8 weights x is quantized
  // into xq (rows * in bytes) and the product, computed into yq (rows * out bytes), is
  // dequantized into y. rows >= 1; x needs XNN_EXTRA_BYTES of readable memory past its end.
  void run(size_t rows, const float* x, float* y, int8_t* xq, int8_t* yq, pthreadpool_t pool) const;
  // int8 weights only: the GEMM on int8 activations in input_quant() to int8 output, and the
  // conversions on either side of it (rows * in() and rows * out() values).
  void run_q(size_t rows, const int8_t* xq, int8_t* yq, pthreadpool_t pool) const;
  void quantize_input(size_t rows, const float* x, int8_t* xq) const;
  void dequantize_output(size_t rows, const int8_t* yq, float* y) const;

 private:
  void destroy();

  xnn_operator_t op_ = nullptr;
  size_t in_ = 0, out_ = 0;
  bool quantized_ = false;
  ActQuant input_quant_, output_quant_;
  // Per-channel output: real = q * channel_step_[c] + channel_offset_[c]; empty for one scale.
  // ReLU is then applied in float.
  std::vector<float> channel_step_, channel_offset_;
  bool relu_ = false;
  // The VNNI path: packed weights (kernels/gemm_qs8.h) and the requantization of the output.
  std::unique_ptr<uint8_t[]> vnni_weights_;  // uninitialized until packed: no memset of megabytes
  std::vector<float> vnni_scale_;
  kernels::GemmQs8Output vnni_output_{};
};

}  // namespace pmt::rt
