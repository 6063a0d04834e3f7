// Linear on XNNPACK against a double-precision reference: fp32, int8 with one output scale, and
// int8 with per-channel output ranges.
#include <doctest/doctest.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "linear.h"

namespace pmt::rt {
namespace {

constexpr size_t kIn = 48, kOut = 20, kRows = 5;

struct Fixture {
  std::vector<int8_t> q_weights;  // [kOut, kIn]
  std::vector<float> scales, f_weights, bias, x;
  Fixture() {
    std::mt19937 rng(4);
    std::uniform_int_distribution<int> q(-127, 127);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (size_t i = 0; i < kOut * kIn; ++i) q_weights.push_back(static_cast<int8_t>(q(rng)));
    for (size_t c = 0; c < kOut; ++c) scales.push_back(0.002f + 0.001f * static_cast<float>(c % 5));
    for (size_t c = 0; c < kOut; ++c)
      for (size_t j = 0; j < kIn; ++j) f_weights.push_back(q_weights[c * kIn + j] * scales[c]);
    for (size_t c = 0; c < kOut; ++c) bias.push_back(0.1f * u(rng));
    for (size_t i = 0; i < kRows * kIn + 16; ++i) x.push_back(u(rng));  // + XNNPACK's read slack
  }
  TensorView view(DType dtype, const ActQuant& in, const ActQuant& out, const uint16_t* ranges = nullptr) const {
    TensorView v;
    v.name = "test.weight";
    v.shape = {kOut, kIn};
    v.dtype = dtype;
    v.data = dtype == DType::I8 ? static_cast<const void*>(q_weights.data()) : f_weights.data();
    v.bytes = kOut * kIn * (dtype == DType::I8 ? 1 : 4);
    if (dtype == DType::I8) {
      v.scales = scales.data();
      v.input_quant = in;
      v.output_quant = out;
      v.output_ranges = ranges;
    }
    return v;
  }
  // y[r, c] in double from weights w and inputs xs.
  double reference(const std::vector<float>& w, const std::vector<double>& xs, size_t r, size_t c) const {
    double y = bias[c];
    for (size_t j = 0; j < kIn; ++j) y += double{w[c * kIn + j]} * xs[r * kIn + j];
    return y;
  }
  // The range of output channel c over the rows of xs, widened to contain 0.
  std::pair<double, double> output_range(const std::vector<double>& xs, size_t c) const {
    double lo = 0, hi = 0;
    for (size_t r = 0; r < kRows; ++r) {
      lo = std::min(lo, reference(f_weights, xs, r, c));
      hi = std::max(hi, reference(f_weights, xs, r, c));
    }
    return {lo, hi};
  }
};

// Per-channel ranges as the file stores them: binary16, rounded outward. `ranges` is replaced
// by the values the halves hold, so that expectations use what the Linear sees.
std::vector<uint16_t> as_half(std::vector<float>* ranges) {
  std::vector<uint16_t> halves;
  for (size_t i = 0; i < ranges->size(); ++i) {
    halves.push_back(float_to_half((*ranges)[i], i % 2 == 0 ? HalfRounding::kDown : HalfRounding::kUp));
    (*ranges)[i] = half_to_float(halves.back());
  }
  return halves;
}

TEST_CASE("fp32 Linear equals x W^T + b") {
  REQUIRE(xnn_initialize(nullptr) == xnn_status_success);
  const Fixture f;
  Linear op;
  REQUIRE(op.create(f.view(DType::F32, {}, {}), f.bias.data(), {}).empty());
  std::vector<float> y(kRows * kOut);
  op.run(kRows, f.x.data(), y.data(), nullptr, nullptr, nullptr);
  const std::vector<double> xs(f.x.begin(), f.x.end());
  for (size_t r = 0; r < kRows; ++r)
    for (size_t c = 0; c < kOut; ++c) CHECK(y[r * kOut + c] == doctest::Approx(f.reference(f.f_weights, xs, r, c)).epsilon(1e-5));
}

TEST_CASE("int8 Linear: within half an output step, shared or per channel") {
  REQUIRE(xnn_initialize(nullptr) == xnn_status_success);
  const Fixture f;
  const ActQuant in{2.f / 255.f, 0};
  // What the GEMM sees: x quantized with `in` (round to nearest even, as the runtime's kernel).
  std::vector<double> xs(kRows * kIn);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = std::clamp(std::nearbyint(f.x[i] / in.scale), -128.f, 127.f) * in.scale;
  // One output range of +-0.6 as if calibrated; per channel, ranges as wide as 1.2 and as narrow
  // as 0.2, off centre, each holding that channel's outputs here.
  const ActQuant out{1.2f / 255.f, 0};
  std::vector<float> ranges;
  for (size_t c = 0; c < kOut; ++c) {
    const auto [lo, hi] = f.output_range(xs, c);
    ranges.insert(ranges.end(), {static_cast<float>(lo) - 0.01f * c, static_cast<float>(hi) + 0.05f});
  }
  const std::vector<uint16_t> halves = as_half(&ranges);
  // ReLU with per-channel ranges is applied in float after the GEMM, so it is checked there.
  for (const auto& setting : {std::pair{false, false}, std::pair{true, false}, std::pair{true, true}}) {
    // Named copies, not a structured binding: clang 14 cannot capture those in CAPTURE's lambda.
    const bool per_channel = setting.first, relu = setting.second;
    CAPTURE(per_channel);
    CAPTURE(relu);
    Linear op;
    REQUIRE(op.create(f.view(DType::I8, in, out, per_channel ? halves.data() : nullptr), f.bias.data(), {.relu = relu})
                .empty());
    std::vector<int8_t> xq(kRows * kIn + 16), yq(kRows * kOut);
    std::vector<float> y(kRows * kOut);
    op.run(kRows, f.x.data(), y.data(), xq.data(), yq.data(), nullptr);
    for (size_t r = 0; r < kRows; ++r) {
      for (size_t c = 0; c < kOut; ++c) {
        CAPTURE(c);
        const double exact = f.reference(f.f_weights, xs, r, c);
        const double want = relu ? std::max(exact, 0.0) : exact;
        const double step = per_channel ? (ranges[2 * c + 1] - ranges[2 * c]) / 254.0 : out.scale;
        // The int32 bias is rounded to the accumulator's unit in_scale * weight_scale.
        const double bias_rounding = 0.5 * in.scale * f.scales[c];
        if (!per_channel && std::fabs(want) > 127.5 * step) continue;  // saturates
        CHECK(std::fabs(y[r * kOut + c] - want) <= 0.5 * step + bias_rounding + 1e-6);
      }
    }
  }
}

}  // namespace
}  // namespace pmt::rt
