#include "train/ops/linear.h"

#include <doctest/doctest.h>

#include "gradient_check.h"

namespace pmt::train {
namespace {

using test::numeric_gradient;
using test::random_vector;
using test::relative_error;
using test::weighted_sum;

TEST_CASE("linear forward matches a hand-written product") {
  const int n = 3, in = 4, out = 5;
  auto x = random_vector(n * in, 1), w = random_vector(out * in, 2), b = random_vector(out, 3);
  std::vector<float> y(n * out);
  linear_forward(y.data(), x.data(), w.data(), b.data(), n, in, out);
  for (int r = 0; r < n; ++r) {
    for (int o = 0; o < out; ++o) {
      double ref = b[o];
      for (int i = 0; i < in; ++i) ref += static_cast<double>(x[r * in + i]) * w[o * in + i];
      CHECK(y[r * out + o] == doctest::Approx(ref).epsilon(1e-5));
    }
  }
  linear_forward(y.data(), x.data(), w.data(), nullptr, n, in, out);
  double ref = 0.0;
  for (int i = 0; i < in; ++i) ref += static_cast<double>(x[in + i]) * w[2 * in + i];
  CHECK(y[out + 2] == doctest::Approx(ref).epsilon(1e-5));
}

TEST_CASE("linear backward matches finite differences; parameter gradients accumulate") {
  const int n = 5, in = 7, out = 4;
  auto x = random_vector(n * in, 4), w = random_vector(out * in, 5), b = random_vector(out, 6);
  const auto r = random_vector(n * out, 7);  // d loss / d y
  std::vector<float> y(n * out);
  auto loss = [&] {
    linear_forward(y.data(), x.data(), w.data(), b.data(), n, in, out);
    return weighted_sum(y.data(), r);
  };
  // Gradients start non-zero: kWrite must overwrite dx, dw and db must add to what is there.
  const float base = 0.5f;
  std::vector<float> dx(n * in, base), dw(out * in, base), db(out, base);
  linear_backward(dx.data(), InputGrad::kWrite, dw.data(), db.data(), r.data(), x.data(), w.data(), n, in, out);
  for (auto* g : {&dw, &db})
    for (float& v : *g) v -= base;
  CHECK(relative_error(dx.data(), numeric_gradient(x, loss)) < 1e-3);
  CHECK(relative_error(dw.data(), numeric_gradient(w, loss)) < 1e-3);
  CHECK(relative_error(db.data(), numeric_gradient(b, loss)) < 1e-3);

  std::vector<float> dx_acc(n * in, base);
  linear_backward(dx_acc.data(), InputGrad::kAccumulate, dw.data(), nullptr, r.data(), x.data(), w.data(), n, in,
                  out);
  for (int i = 0; i < n * in; ++i) CHECK(dx_acc[i] == doctest::Approx(dx[i] + base).epsilon(1e-5));
}

}  // namespace
}  // namespace pmt::train
