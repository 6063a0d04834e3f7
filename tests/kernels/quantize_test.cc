#include "kernels/quantize.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel_test_util.h"

namespace pmt::kernels {
namespace {

using testing::check_close;
using testing::random_floats;

TEST_CASE("quantize_qs8 rounds ties to even and saturates, as XNNPACK's convert") {
  // scale 0.5 (exact reciprocal 2), zero point 3: x * 2 is exactly the tie in most entries.
  // 61.25 -> 122.5 -> 122 and -65.25 -> -130.5 -> -130 tell ties-to-even from ties-away.
  const std::vector<float> x = {0.25f,  0.75f,   1.25f,  -0.25f, -0.75f,  -1.25f, 0.3f,
                                100.0f, -100.0f, 61.25f, 61.75f, -65.25f, -65.75f};
  const std::vector<int8_t> want = {3, 5, 5, 3, 1, 1, 4, 127, -128, 125, 127, -127, -128};
  for (auto* fn : {quantize_qs8, quantize_qs8_ref}) {
    std::vector<int8_t> y(x.size());
    fn(x.data(), y.data(), x.size(), 0.5f, 3);
    CHECK(y == want);
  }
}

// Issue 14, finding 3: an activation that overflowed to NaN made the float -> int conversion
// undefined (UBSan in the sanitizer build); it now saturates low, like -infinity.
TEST_CASE("quantize_qs8 maps NaN and infinities into the int8 range") {
  const std::vector<float> x = {NAN, -NAN, INFINITY, -INFINITY, 1.0f};
  std::vector<int8_t> y(x.size());
  quantize_qs8(x.data(), y.data(), x.size(), 0.5f, 3);
  CHECK(y == std::vector<int8_t>{-128, -128, 127, -128, 5});
}

TEST_CASE("quantize_qs8 matches the reference on odd sizes, bit for bit") {
  for (size_t n : testing::kOddSizes) {
    const auto x = random_floats(n, -6, 6, static_cast<uint32_t>(n));
    for (int32_t zero_point : {-128, -5, 0, 127}) {
      std::vector<int8_t> got(n), want(n);
      quantize_qs8(x.data(), got.data(), n, 0.037f, zero_point);
      quantize_qs8_ref(x.data(), want.data(), n, 0.037f, zero_point);
      CHECK(got == want);
    }
  }
}

TEST_CASE("dequantize_qs8 and its reference match hand-computed values") {
  const std::vector<int8_t> x = {-128, -3, 0, 127};
  const std::vector<float> want = {-62.5f, 0.0f, 1.5f, 65.0f};  // (x + 3) * 0.5
  for (auto* fn : {dequantize_qs8, dequantize_qs8_ref}) {
    std::vector<float> y(4);
    fn(x.data(), y.data(), 4, 0.5f, -3);
    CHECK(y == want);
  }
}

TEST_CASE("quantize then dequantize is within half a step for in-range values") {
  const size_t n = 257;
  const float scale = 0.05f;
  const int32_t zero_point = 10;
  // Representable range: [(-128 - 10) * 0.05, (127 - 10) * 0.05] = [-6.9, 5.85].
  const auto x = random_floats(n, -6.8f, 5.8f, 3);
  std::vector<int8_t> q(n);
  std::vector<float> back(n);
  quantize_qs8(x.data(), q.data(), n, scale, zero_point);
  dequantize_qs8(q.data(), back.data(), n, scale, zero_point);
  check_close(back, x, 0, scale / 2 * 1.0001f);
}

TEST_CASE("dequantize_qs8_channels applies each column's step and offset") {
  // 2 rows x 3 columns.
  const std::vector<int8_t> x = {1, 5, -3, 9, 0, -127};
  const std::vector<float> step = {0.25f, 0.5f, 2.0f};
  const std::vector<float> offset = {1.0f, -2.0f, 0.5f};
  const std::vector<float> want = {1.25f, 0.5f, -5.5f, 3.25f, -2.0f, -253.5f};
  for (auto* fn : {dequantize_qs8_channels, dequantize_qs8_channels_ref}) {
    std::vector<float> y(6);
    fn(x.data(), step.data(), offset.data(), false, y.data(), 2, 3);
    CHECK(y == want);
    fn(x.data(), step.data(), offset.data(), true, y.data(), 2, 3);
    for (size_t i = 0; i < 6; ++i) CHECK(y[i] == std::max(want[i], 0.f));
  }
}

TEST_CASE("dequantize_qs8 and dequantize_qs8_channels match the references on odd sizes") {
  for (size_t cols : testing::kOddSizes) {
    const size_t rows = 3, n = rows * cols;
    std::vector<int8_t> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 256) - 128);
    const auto step = random_floats(cols, 0.001f, 0.1f, 4);
    const auto offset = random_floats(cols, -1, 1, 5);
    std::vector<float> got(n), want(n);
    dequantize_qs8(x.data(), got.data(), n, 0.0173f, -7);
    dequantize_qs8_ref(x.data(), want.data(), n, 0.0173f, -7);
    CHECK(got == want);
    for (bool relu : {false, true}) {
      dequantize_qs8_channels(x.data(), step.data(), offset.data(), relu, got.data(), rows, cols);
      dequantize_qs8_channels_ref(x.data(), step.data(), offset.data(), relu, want.data(), rows, cols);
      check_close(got, want, 1e-6f, 1e-7f);
    }
  }
}

TEST_CASE("dequantize_row_qc8 scales one row") {
  const std::vector<int8_t> w = {-128, -1, 0, 1, 127};
  const std::vector<float> want = {-32.0f, -0.25f, 0.0f, 0.25f, 31.75f};
  for (auto* fn : {dequantize_row_qc8, dequantize_row_qc8_ref}) {
    std::vector<float> y(5);
    fn(w.data(), 0.25f, y.data(), 5);
    CHECK(y == want);
  }
  for (size_t n : testing::kOddSizes) {
    std::vector<int8_t> row(n);
    for (size_t i = 0; i < n; ++i)
      row[i] = static_cast<int8_t>(static_cast<int>(i * 53 % 256) - 128);
    std::vector<float> got(n), want_n(n);
    dequantize_row_qc8(row.data(), 0.0091f, got.data(), n);
    dequantize_row_qc8_ref(row.data(), 0.0091f, want_n.data(), n);
    CHECK(got == want_n);
  }
}

TEST_CASE("round_bf16 rounds to nearest, ties to even, as its reference") {
  // 1 + 2^-8 lies halfway between the bfloat16 values 1 and 1 + 2^-7: the even one (1) wins;
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6: 1 + 2^-6 wins.
  const std::vector<float> x = {1.0f, 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-8f + 0x1p-20f, -1.0f - 0x1p-8f,
                                0.0f, -0.0f, 3.0e38f, 1e-40f};
  const std::vector<uint16_t> want = {0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xBF80, 0x0000, 0x8000, 0x7F62, 0x0001};
  std::vector<uint16_t> got(x.size()), ref(x.size());
  round_bf16(x.data(), got.data(), x.size());
  round_bf16_ref(x.data(), ref.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
    CHECK(ref[i] == want[i]);
  }
  for (size_t n : testing::kOddSizes) {
    const auto r = testing::random_floats(n, -1e6f, 1e6f, static_cast<uint32_t>(n));
    std::vector<uint16_t> a(n), b(n);
    round_bf16(r.data(), a.data(), n);
    round_bf16_ref(r.data(), b.data(), n);
    CHECK(a == b);
  }
}

}  // namespace
}  // namespace pmt::kernels
