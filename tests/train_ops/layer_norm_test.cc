#include "train/ops/layer_norm.h"

#include <doctest/doctest.h>

#include <cmath>

#include "gradient_check.h"

namespace pmt::train {
namespace {

using test::numeric_gradient;
using test::random_vector;
using test::relative_error;
using test::weighted_sum;

TEST_CASE("layer norm forward uses the biased variance") {
  // Row {1, 2, 3, 4}: mean 2.5, biased variance 1.25.
  const std::vector<float> x = {1, 2, 3, 4}, w = {1, 2, 1, 1}, b = {0, 0, 0, 1};
  const float eps = 1e-5f;
  std::vector<float> y(4), mean(1), rstd(1);
  layer_norm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 1, 4, eps);
  const double s = 1.0 / std::sqrt(1.25 + eps);
  CHECK(mean[0] == doctest::Approx(2.5));
  CHECK(y[0] == doctest::Approx(-1.5 * s));
  CHECK(y[1] == doctest::Approx(-0.5 * s * 2));
  CHECK(y[3] == doctest::Approx(1.5 * s + 1));
}

TEST_CASE("layer norm backward matches finite differences") {
  const int n = 4, d = 8;
  auto x = random_vector(n * d, 11, -2.f, 2.f), w = random_vector(d, 12, 0.5f, 1.5f), b = random_vector(d, 13);
  const auto r = random_vector(n * d, 14);
  std::vector<float> y(n * d), mean(n), rstd(n);
  auto loss = [&] {
    layer_norm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), n, d, 1e-5f);
    return weighted_sum(y.data(), r);
  };
  loss();
  std::vector<float> dx(n * d, 0.f), dw(d, 0.f), db(d, 0.f);
  layer_norm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), mean.data(), rstd.data(), w.data(), n, d);
  CHECK(relative_error(dx.data(), numeric_gradient(x, loss, 1e-3f)) < 1e-2);
  CHECK(relative_error(dw.data(), numeric_gradient(w, loss)) < 1e-3);
  CHECK(relative_error(db.data(), numeric_gradient(b, loss)) < 1e-3);
}

}  // namespace
}  // namespace pmt::train
