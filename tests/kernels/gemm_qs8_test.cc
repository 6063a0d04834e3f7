// The int8 GEMM of the VNNI path against its scalar reference, and the reference against
// XNNPACK's qc8 operator, which the path replaces: the same bytes, so translations do not depend
// on which of the two ran.
#include "kernels/gemm_qs8.h"

#include <doctest/doctest.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

namespace pmt::kernels {
namespace {

struct Problem {
  size_t rows, out, in;
  int32_t x_zero_point, y_zero_point, y_min;
  std::vector<int8_t> x, w;
  std::vector<int32_t> bias;
  std::vector<float> w_scale;
  float x_scale, y_scale;
  std::vector<float> scale;  // XNNPACK's requantization scales: (x_scale * w_scale[c]) / y_scale

  Problem(size_t rows_, size_t out_, size_t in_, uint32_t seed, bool relu = false)
      : rows(rows_), out(out_), in(in_) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(-128, 127), weight(-127, 127), zero(-20, 20);
    std::uniform_real_distribution<float> unit(0.5f, 2.f);
    x_zero_point = zero(rng);
    y_zero_point = zero(rng);
    y_min = relu ? y_zero_point : -128;
    x.resize(rows * in + 64);  // + XNNPACK's read slack
    for (auto& v : x) v = static_cast<int8_t>(byte(rng));
    for (size_t i = 0; i < out * in; ++i) w.push_back(static_cast<int8_t>(weight(rng)));
    std::uniform_int_distribution<int32_t> b(-20000, 20000);
    for (size_t c = 0; c < out; ++c) bias.push_back(b(rng));
    // Outputs spread over about +-200 levels: some saturate on both sides, most do not.
    x_scale = 0.02f * unit(rng);
    y_scale = 1.f;
    const float spread = 200.f / (60.f * std::sqrt(static_cast<float>(in)) * 128.f);
    for (size_t c = 0; c < out; ++c) {
      w_scale.push_back(spread / x_scale * unit(rng));
      scale.push_back(x_scale * w_scale[c] / y_scale);
    }
  }
  GemmQs8Output output() const { return {scale.data(), y_zero_point, y_min, 127}; }
  std::vector<int8_t> reference() const {
    std::vector<int8_t> y(rows * out);
    gemm_qs8_ref(x.data(), rows, out, in, w.data(), bias.data(), x_zero_point, output(), y.data());
    return y;
  }
};

TEST_CASE("gemm_qs8_ref gives the bytes of XNNPACK's qc8 operator") {
  REQUIRE(xnn_initialize(nullptr) == xnn_status_success);
  for (const bool relu : {false, true}) {
    for (const auto& shape : {std::tuple{1, 16, 64}, {5, 20, 48}, {32, 96, 256}, {3, 7, 1024}}) {
      // Named copies, not a structured binding: clang 14 cannot capture those in CAPTURE's lambda.
      const size_t rows = std::get<0>(shape), out = std::get<1>(shape), in = std::get<2>(shape);
      CAPTURE(relu);
      CAPTURE(rows);
      CAPTURE(out);
      CAPTURE(in);
      const Problem p(rows, out, in, static_cast<uint32_t>(rows * 131 + out * 7 + in), relu);
      xnn_operator_t op = nullptr;
      REQUIRE(xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, in, out, in, out,
                                                 static_cast<int8_t>(p.x_zero_point), p.x_scale, p.w_scale.data(),
                                                 p.w.data(), p.bias.data(), static_cast<int8_t>(p.y_zero_point),
                                                 p.y_scale, static_cast<int8_t>(p.y_min), 127, 0,
                                                 &op) == xnn_status_success);
      std::vector<int8_t> y(rows * out);
      REQUIRE(xnn_setup_convolution2d_nhwc_qc8(op, 1, 1, rows, p.x.data(), y.data(), nullptr) == xnn_status_success);
      REQUIRE(xnn_run_operator(op, nullptr) == xnn_status_success);
      xnn_delete_operator(op);
      const std::vector<int8_t> want = p.reference();
      CHECK(y == want);
      // Both sides of the clamp are reached, so the comparison covers saturation.
      CHECK(std::count(want.begin(), want.end(), int8_t{127}) > 0);
      CHECK(std::count(want.begin(), want.end(), static_cast<int8_t>(p.y_min)) > 0);
    }
  }
}

TEST_CASE("gemm_qs8_vnni equals the reference on every tile shape") {
  if (!cpu_has_avx512_vnni()) {
    MESSAGE("this CPU has no AVX-512 VNNI (or PMT_NO_VNNI=1): the VNNI kernel is not run");
    return;
  }
  for (size_t rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 33}) {
    for (size_t out : {1, 15, 16, 17, 33, 64, 100, 130}) {
      for (size_t in : {4, 60, 64, 68, 256}) {
        CAPTURE(rows);
        CAPTURE(out);
        CAPTURE(in);
        const Problem p(rows, out, in, static_cast<uint32_t>(rows * 1000 + out * 10 + in), out % 2 == 1);
        std::vector<uint8_t> packed(gemm_qs8_packed_size(out, in));
        gemm_qs8_pack(p.w.data(), p.bias.data(), out, in, p.x_zero_point, packed.data());
        // Whole, then in tiles of 8 rows x 64 channels as threads take them (Linear::run_q).
        std::vector<int8_t> y(rows * out), tiled(rows * out);
        gemm_qs8_vnni(p.x.data(), 0, rows, 0, out, out, in, packed.data(), p.output(), y.data());
        for (size_t r = 0; r < rows; r += 8)
          for (size_t c = 0; c < out; c += 64)
            gemm_qs8_vnni(p.x.data(), r, std::min<size_t>(8, rows - r), c, std::min<size_t>(64, out - c), out, in,
                          packed.data(), p.output(), tiled.data());
        const std::vector<int8_t> want = p.reference();
        CHECK(y == want);
        CHECK(tiled == want);
      }
    }
  }
}

}  // namespace
}  // namespace pmt::kernels
