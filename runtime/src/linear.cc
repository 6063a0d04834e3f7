#include "linear.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/quantize.h"

namespace pmt::rt {
namespace {

// Setup and run can only fail on a programming error (no operator, zero rows): there is no way
// to carry on, so say what broke and stop.
void check(xnn_status status, const char* what) {
  if (status == xnn_status_success) return;
  std::fprintf(stderr, "pocketmt: internal error: %s failed (xnn_status %d)\n", what, static_cast<int>(status));
  std::abort();
}

std::string xnn_error(xnn_status status, const TensorView& weight) {
  return "XNNPACK refused " + std::string(weight.name) + " (xnn_status " +
         std::to_string(static_cast<int>(status)) + ")";
}

}  // namespace

Linear::~Linear() { destroy(); }

Linear::Linear(Linear&& other) noexcept { *this = std::move(other); }

Linear& Linear::operator=(Linear&& other) noexcept {
  if (this != &other) {
    destroy();
    op_ = std::exchange(other.op_, nullptr);
    in_ = other.in_;
    out_ = other.out_;
    quantized_ = other.quantized_;
    input_quant_ = other.input_quant_;
    output_quant_ = other.output_quant_;
    channel_step_ = std::move(other.channel_step_);
    channel_offset_ = std::move(other.channel_offset_);
    relu_ = other.relu_;
    vnni_weights_ = std::move(other.vnni_weights_);
    vnni_scale_ = std::move(other.vnni_scale_);
    vnni_output_ = other.vnni_output_;
    vnni_output_.scale = vnni_scale_.data();
  }
  return *this;
}

void Linear::destroy() {
  if (op_ != nullptr) xnn_delete_operator(op_);
  op_ = nullptr;
  vnni_weights_.reset();
  vnni_scale_.clear();
}

std::string Linear::create(const TensorView& weight, const float* bias, const Options& options) {
  destroy();
  out_ = static_cast<size_t>(weight.shape[0]);
  in_ = static_cast<size_t>(weight.shape[1]);
  quantized_ = weight.dtype == DType::I8;
  xnn_status status;
  if (!quantized_) {
    const float lo = options.relu ? 0.f : -std::numeric_limits<float>::infinity();
    status = xnn_create_convolution2d_nhwc_f32(
        0, 0, 0, 0, 1, 1, 1, 1, 1, 1, /*groups=*/1, in_, out_, in_, out_, weight.f32(), bias, lo,
        std::numeric_limits<float>::infinity(), 0, &op_);
    return status == xnn_status_success ? std::string() : xnn_error(status, weight);
  }

  input_quant_ = options.input_quant != nullptr ? *options.input_quant : *weight.input_quant;
  output_quant_ = *weight.output_quant;
  const bool per_channel = weight.output_ranges != nullptr;
  relu_ = per_channel && options.relu;
  if (options.relu && !per_channel) {
    // The calibrated output range includes the negative values ReLU removes: spend all 256
    // levels on [0, max] instead, which halves the step of the stored activations.
    const float hi = output_quant_.scale * static_cast<float>(127 - output_quant_.zero_point);
    if (hi > 0.f && std::isnormal(hi / 255.f)) output_quant_ = {hi / 255.f, -128};
  }
  channel_step_.clear();
  channel_offset_.clear();

  // XNNPACK wants every kernel scale positive and normal; a row whose stored scale is below the
  // normal range holds (numerically) zero weights, so any normal scale gives the same products.
  std::vector<float> scales(weight.scales, weight.scales + out_);
  for (float& s : scales) s = std::max(s, FLT_MIN);
  // The int32 bias is in units of the accumulator, input_scale * weight_scale[c], which
  // rescaling a row (below) leaves unchanged.
  std::vector<int32_t> qbias(out_, 0);
  auto quantize_bias = [&](size_t c, float b) {
    const double q = std::nearbyint(double{b} / (double{input_quant_.scale} * scales[c]));
    constexpr double kMax = std::numeric_limits<int32_t>::max();
    qbias[c] = static_cast<int32_t>(std::clamp(q, -kMax, kMax));
  };
  if (per_channel) {
    channel_step_.resize(out_);
    channel_offset_.resize(out_);
    output_quant_ = {1.f, 0};
    for (size_t c = 0; c < out_; ++c) {
      const float lo = half_to_float(weight.output_ranges[2 * c]), hi = half_to_float(weight.output_ranges[2 * c + 1]);
      // No step finer than 1/64 of the accumulator's unit: XNNPACK rejects requantization
      // scales (input_scale * kernel_scale / output_scale) of 256 and above, and a finer step
      // would only spread the same integer sums over more levels.
      const float step = std::max((hi - lo) / 254.f, input_quant_.scale * scales[c] / 64.f);
      channel_step_[c] = step;
      channel_offset_[c] = 0.5f * (lo + hi);
      quantize_bias(c, (bias != nullptr ? bias[c] : 0.f) - channel_offset_[c]);
      scales[c] /= step;
    }
  } else if (bias != nullptr) {
    for (size_t c = 0; c < out_; ++c) quantize_bias(c, bias[c]);
  }
  const int8_t output_min = options.relu && !per_channel ? static_cast<int8_t>(output_quant_.zero_point) : int8_t{-128};
  if (kernels::cpu_has_avx512_vnni() && in_ % 4 == 0) {
    // XNNPACK's requantization scale, in float and in its order; it refuses scales outside
    // [2^-32, 256), and so does this path, by leaving such a layer to XNNPACK.
    vnni_scale_.resize(out_);
    bool in_range = true;
    for (size_t c = 0; c < out_; ++c) {
      vnni_scale_[c] = input_quant_.scale * scales[c] / output_quant_.scale;
      in_range = in_range && vnni_scale_[c] >= 0x1.0p-32f && vnni_scale_[c] < 256.f;
    }
    if (in_range) {
      vnni_weights_ = std::make_unique_for_overwrite<uint8_t[]>(kernels::gemm_qs8_packed_size(out_, in_));
      kernels::gemm_qs8_pack(weight.i8(), qbias.data(), out_, in_, input_quant_.zero_point, vnni_weights_.get());
      vnni_output_ = {vnni_scale_.data(), output_quant_.zero_point, output_min, 127};
      return std::string();
    }
    vnni_scale_.clear();
  }
  status = xnn_create_convolution2d_nhwc_qc8(
      0, 0, 0, 0, 1, 1, 1, 1, 1, 1, /*groups=*/1, in_, out_, in_, out_,
      static_cast<int8_t>(input_quant_.zero_point), input_quant_.scale, scales.data(), weight.i8(),
      qbias.data(), static_cast<int8_t>(output_quant_.zero_point), output_quant_.scale, output_min, int8_t{127}, 0,
      &op_);
  return status == xnn_status_success ? std::string() : xnn_error(status, weight);
}

void Linear::run(size_t rows, const float* x, float* y, int8_t* xq, int8_t* yq, pthreadpool_t pool) const {
  if (!quantized_) {
    check(xnn_setup_convolution2d_nhwc_f32(op_, 1, 1, rows, x, y, pool), "setup f32 linear");
    check(xnn_run_operator(op_, pool), "run f32 linear");
    return;
  }
  quantize_input(rows, x, xq);
  run_q(rows, xq, yq, pool);
  dequantize_output(rows, yq, y);
}

void Linear::quantize_input(size_t rows, const float* x, int8_t* xq) const {
  kernels::quantize_qs8(x, xq, rows * in_, input_quant_.scale, input_quant_.zero_point);
}

void Linear::dequantize_output(size_t rows, const int8_t* yq, float* y) const {
  if (channel_step_.empty())
    kernels::dequantize_qs8(yq, y, rows * out_, output_quant_.scale, output_quant_.zero_point);
  else
    kernels::dequantize_qs8_channels(yq, channel_step_.data(), channel_offset_.data(), relu_, y, rows, out_);
}

void Linear::run_q(size_t rows, const int8_t* xq, int8_t* yq, pthreadpool_t pool) const {
  if (vnni_weights_ != nullptr) {
    struct Job {
      const Linear* self;
      const int8_t* x;
      int8_t* y;
    } job{this, xq, yq};
    // Tiles of 8 rows by 64 channels: the threads share the channels of the decoder's few rows.
    pthreadpool_parallelize_2d_tile_2d(
        pool,
        [](void* context, size_t r, size_t c, size_t rows, size_t cols) {
          const Job& j = *static_cast<const Job*>(context);
          kernels::gemm_qs8_vnni(j.x, r, rows, c, cols, j.self->out_, j.self->in_, j.self->vnni_weights_.get(),
                                 j.self->vnni_output_, j.y);
        },
        &job, rows, out_, 8, 64, 0);
    return;
  }
  check(xnn_setup_convolution2d_nhwc_qc8(op_, 1, 1, rows, xq, yq, pool), "setup int8 linear");
  check(xnn_run_operator(op_, pool), "run int8 linear");
}

}  // namespace pmt::rt
