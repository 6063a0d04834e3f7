#include "train/ops/cross_entropy.h"

#include <doctest/doctest.h>

#include <cmath>

#include "gradient_check.h"

namespace pmt::train {
namespace {

// Label-smoothed loss of one row, written from the definition: -sum_j q_j log softmax(z)_j.
double reference_row_loss(const float* z, int v, int target, double eps) {
  double m = z[0];
  for (int j = 1; j < v; ++j) m = std::max(m, static_cast<double>(z[j]));
  double s = 0.0;
  for (int j = 0; j < v; ++j) s += std::exp(z[j] - m);
  const double lse = m + std::log(s);
  double loss = 0.0;
  for (int j = 0; j < v; ++j) loss -= ((j == target ? 1.0 - eps : 0.0) + eps / v) * (z[j] - lse);
  return loss;
}

TEST_CASE("label-smoothed cross-entropy: value, padding and gradient") {
  const int n = 5, v = 7, pad = 0;
  const float eps = 0.1f;
  auto logits = test::random_vector(n * v, 1, -3.f, 3.f);
  const std::vector<int32_t> targets = {3, 0, 6, 1, 0};  // rows 1 and 4 are padding
  std::vector<float> dlogits(n * v, 99.f);  // written, not accumulated
  const double loss = cross_entropy_forward_backward(dlogits.data(), logits.data(), targets.data(), n, v, eps, pad,
                                                     1.f / 3.f) / 3;
  const double ref = (reference_row_loss(&logits[0], v, 3, eps) + reference_row_loss(&logits[2 * v], v, 6, eps) +
                      reference_row_loss(&logits[3 * v], v, 1, eps)) /
                     3.0;
  CHECK(loss == doctest::Approx(ref).epsilon(1e-6));

  std::vector<float> scratch(n * v);
  auto mean_loss = [&] {
    return cross_entropy_forward_backward(scratch.data(), logits.data(), targets.data(), n, v, eps, pad, 1.f) / 3;
  };
  CHECK(test::relative_error(dlogits.data(), test::numeric_gradient(logits, mean_loss, 1e-2f)) < 2e-3);
  for (int j = 0; j < v; ++j) CHECK(dlogits[4 * v + j] == 0.f);
}

TEST_CASE("cross-entropy without smoothing is the negative log-likelihood") {
  const std::vector<float> logits = {0.f, std::log(3.f)};  // softmax = {1/4, 3/4}
  const std::vector<int32_t> targets = {1};
  std::vector<float> dlogits(2);
  CHECK(cross_entropy_forward_backward(dlogits.data(), logits.data(), targets.data(), 1, 2, 0.f, -1, 1.f) ==
        doctest::Approx(-std::log(0.75)));
  CHECK(dlogits[0] == doctest::Approx(0.25));
  CHECK(dlogits[1] == doctest::Approx(-0.25));
}

}  // namespace
}  // namespace pmt::train
