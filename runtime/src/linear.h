// One Linear layer, y = x W^T + b with W [out, in], as an XNNPACK operator created at load.
// Both precisions use a 1x1 convolution, which XNNPACK runs as a plain GEMM over the rows:
// - fp32 weights: xnn_convolution2d_nhwc_f32. (The snapshot's f32 fully-connected operator has a
//   multi-threading bug on kernels with SR > 1, fixed upstream in May 2022; this path avoids it.)
// - int8 weights: xnn_convolution2d_nhwc_qc8, the only operator of the snapshot with one weight
//   scale per output channel. Activations are quantized with the static scale and zero point
//   calibrated by the exporter; the int32 bias is b / (input_scale * weight_scale[c]), rounded.
// Setting up and running the operator allocates nothing.
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pocketmt/model_file.h"

namespace pmt::rt {

class Linear {
 public:
  struct Options {
    bool relu = false;  // fuse max(0, y) into the operator's output clamp
    // int8 only: quantize the input with this instead of the file's calibration, so that the
    // int8 output of a previous layer can be consumed as is (see run_q).
    const ActQuant* input_quant = nullptr;
    // int8 only: divide the calibrated output step by this; the few outputs that then saturate
    // are recomputed exactly (see dequantize_output). For outputs whose calibrated range is set
    // by a few outlier channels, so that the others get a finer step.
    int32_t output_refinement = 1;
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
  // int8: the activation quantization of the input and of the (clamped) output.
  const ActQuant& input_quant() const { return input_quant_; }
  const ActQuant& output_quant() const { return output_quant_; }

  // y [rows, out] = x [rows, in] W^T + b, floats in and out. For int8 weights x is quantized
  // into xq (rows * in bytes) and the product, computed into yq (rows * out bytes), is
  // dequantized into y (scratch: 2 * in() floats). rows >= 1; x needs XNN_EXTRA_BYTES of
  // readable memory past its end.
  void run(size_t rows, const float* x, float* y, int8_t* xq, int8_t* yq, float* scratch,
           pthreadpool_t pool) const;
  // int8 weights only: the GEMM on int8 activations in input_quant() to int8 in output_quant(),
  // and the conversions on either side of it (rows * in() and rows * out() values).
  void run_q(size_t rows, const int8_t* xq, int8_t* yq, pthreadpool_t pool) const;
  void quantize_input(size_t rows, const float* x, int8_t* xq) const;
  // y = the real value of yq. With output_refinement > 1, an output at the end of the int8
  // range is recomputed from the int8 input xq the GEMM read: scale[c] * (W[c,:] . x) + b[c].
  void dequantize_output(size_t rows, const int8_t* xq, const int8_t* yq, float* y, float* scratch) const;

 private:
  void destroy();

  xnn_operator_t op_ = nullptr;
  size_t in_ = 0, out_ = 0;
  bool quantized_ = false;
  ActQuant input_quant_, output_quant_;
  // Exact recomputation of saturated outputs: the file's int8 rows and scales, the float bias.
  int32_t output_refinement_ = 1;
  const int8_t* weights_ = nullptr;
  const float* weight_scales_ = nullptr;
  std::vector<float> bias_;
};

// scale * (w . x) for an int8 row w of n values and floats x; scratch: n floats.
float dot_qc8(const int8_t* w, float scale, const float* x, size_t n, float* scratch);

}  // namespace pmt::rt
