// Weight and activation quantization math and the calibration histogram, against hand values.
#include "export/quantize.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "export/act_histogram.h"

using pmt::quant::ActHistogram;
using pmt::quant::act_quant_from_range;
using pmt::quant::quantize_rows;

TEST_CASE("quantize_rows: one symmetric scale per row, round to nearest, clamp to +-127") {
  const std::vector<float> w = {0.5f, -1.27f, 0.005f, 1.27f,   // max 1.27 -> scale 0.01
                                0.f, 0.f, 0.f, 0.f,            // all zero -> scale 1
                                -2.54f, 0.03f, 1.f, -0.011f};  // max 2.54 -> scale 0.02
  std::vector<int8_t> q(12);
  std::vector<float> scales(3);
  quantize_rows(w.data(), 3, 4, q.data(), scales.data());
  CHECK(scales[0] == doctest::Approx(0.01f).epsilon(1e-6));
  CHECK(scales[1] == 1.f);
  CHECK(scales[2] == doctest::Approx(0.02f).epsilon(1e-6));
  const std::vector<int8_t> expected = {50, -127, 1, 127, 0, 0, 0, 0, -127, 2, 50, -1};
  // 0.005 / 0.01 = 0.5 rounds away from zero; 0.03 / 0.02 = 1.5 -> 2; -0.011 / 0.02 = -0.55 -> -1.
  CHECK(q == expected);
}

TEST_CASE("quantize_rows: every dequantized weight is within half a step") {
  const int rows = 17, cols = 33;
  std::vector<float> w(rows * cols);
  uint32_t s = 12345;
  for (size_t i = 0; i < w.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    // Rows of very different magnitudes, as real Linear layers have.
    w[i] = (static_cast<float>(s >> 8) / 16777216.f - 0.5f) * std::pow(10.f, static_cast<float>(i / cols % 5) - 2);
  }
  std::vector<int8_t> q(w.size());
  std::vector<float> scales(rows);
  quantize_rows(w.data(), rows, cols, q.data(), scales.data());
  for (int r = 0; r < rows; ++r) {
    float max_abs = 0;
    for (int c = 0; c < cols; ++c) max_abs = std::max(max_abs, std::fabs(w[r * cols + c]));
    CHECK(scales[r] == doctest::Approx(max_abs / 127).epsilon(1e-6));
    for (int c = 0; c < cols; ++c) {
      CHECK(q[r * cols + c] >= -127);
      CHECK(std::fabs(scales[r] * q[r * cols + c] - w[r * cols + c]) <= scales[r] * 0.5f * (1 + 1e-5f));
    }
  }
}

TEST_CASE("act_quant_from_range: affine parameters that keep zero exact") {
  SUBCASE("post-ReLU range uses every level for positives") {
    const auto q = act_quant_from_range(0.f, 5.1f);
    CHECK(q.scale == doctest::Approx(0.02f));
    CHECK(q.zero_point == -128);
  }
  SUBCASE("a positive range is widened to include zero") {
    const auto q = act_quant_from_range(0.5f, 2.55f);
    CHECK(q.scale == doctest::Approx(0.01f));
    CHECK(q.zero_point == -128);
  }
  SUBCASE("a negative range maps zero to the top level") {
    const auto q = act_quant_from_range(-2.55f, -1.f);
    CHECK(q.scale == doctest::Approx(0.01f));
    CHECK(q.zero_point == 127);
  }
  SUBCASE("an asymmetric range") {
    // [-1.02, 4.08]: scale 0.02, zero point -128 + 51 = -77.
    const auto q = act_quant_from_range(-1.02f, 4.08f);
    CHECK(q.scale == doctest::Approx(0.02f));
    CHECK(q.zero_point == -77);
  }
  SUBCASE("a degenerate range still gives a usable scale") {
    const auto q = act_quant_from_range(0.f, 0.f);
    CHECK(q.scale == doctest::Approx(1.f / 255));
    CHECK(q.zero_point == -128);
  }
}

TEST_CASE("ActHistogram: exact extremes, percentiles within a 1/64 bin, outliers clipped") {
  ActHistogram h;
  CHECK(h.percentile(99) == 0.f);
  // 100,000 evenly spaced values in [-1, 1] and one outlier at 1000.
  const int n = 100000;
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = -1.f + 2.f * static_cast<float>(i) / (n - 1);
  h.add(v.data(), v.size());
  const float outlier = 1000.f;
  h.add(&outlier, 1);
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
  h.add(bad, 2);
  CHECK(h.count() == n + 1);
  CHECK(h.non_finite() == 2);
  CHECK(h.min() == -1.f);
  CHECK(h.max() == 1000.f);
  CHECK(h.percentile(100) == 1000.f);
  CHECK(h.percentile(0) == -1.f);
  // 99.99th: the ceil(0.9999 * 100001) = 99991st smallest = v[99990]; the outlier is clipped.
  const float p_hi = h.percentile(99.99);
  CHECK(p_hi >= v[99990]);
  CHECK(p_hi <= v[99990] * (1 + 1.f / 64));
  // 0.01th: the 11th smallest = v[10], rounded outward (more negative).
  const float p_lo = h.percentile(0.01);
  CHECK(p_lo <= v[10]);
  CHECK(p_lo >= v[10] * (1 + 1.f / 64));
  // The median of a symmetric set (plus one outlier) is near zero.
  CHECK(std::fabs(h.percentile(50)) <= 2e-5f);
}

TEST_CASE("ActHistogram: one-signed data has a zero lower tail") {
  ActHistogram h;
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i % 2 ? 0.f : static_cast<float>(i) / 100;
  h.add(v.data(), v.size());
  CHECK(h.percentile(0.01) == 0.f);
  CHECK(h.percentile(100) == doctest::Approx(9.98f));
}
