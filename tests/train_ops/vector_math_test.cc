#include "train/ops/vector_math.h"

#include <doctest/doctest.h>

#include <cmath>

#include "gradient_check.h"

namespace pmt::train {
namespace {

TEST_CASE("exp_fast is within 3e-7 of exp over the float range") {
  double worst = 0.0;
  for (float x = -87.f; x <= 88.f; x += 0.0137f) {
    const double ref = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(exp_fast(x) - ref) / ref);
  }
  CHECK(worst < 3e-7);
  CHECK(exp_fast(0.f) == 1.f);
  // Far below the range: tiny, never negative, infinite or NaN.
  for (float x : {-88.f, -100.f, -1000.f, -1e5f}) {
    CHECK(exp_fast(x) >= 0.f);
    CHECK(exp_fast(x) < 1e-37f);
  }
}

TEST_CASE("lane reductions match plain loops for every tail length") {
  const auto x = test::random_vector(53, 1, -5.f, 5.f);
  for (long n = 1; n <= 53; ++n) {
    double sum = 0.0;
    float m = x[0];
    for (long i = 0; i < n; ++i) {
      sum += x[i];
      m = std::max(m, x[i]);
    }
    CHECK(sum_lanes(x.data(), n) == doctest::Approx(sum).epsilon(1e-5));
    CHECK(max_lanes(x.data(), n) == m);
  }
}

}  // namespace
}  // namespace pmt::train
