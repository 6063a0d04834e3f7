#include "kernels/layer_norm.h"

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace pmt::kernels {
namespace {

using testing::check_close;
using testing::random_floats;

// x = [1, 2, 3, 4]: mean 2.5, biased variance 1.25, so (x - 2.5) / sqrt(1.25).
const std::vector<float> kNormalized = {-1.34164079f, -0.44721360f, 0.44721360f, 1.34164079f};

TEST_CASE("add_layer_norm and its reference match hand-computed values") {
  const std::vector<float> x = {0, 1, 2, 3}, residual = {1, 1, 1, 1};
  const std::vector<float> gamma = {2, 2, 2, 2}, beta = {1, 1, 1, 1};
  std::vector<float> want(4);
  for (size_t i = 0; i < 4; ++i) want[i] = 2 * kNormalized[i] + 1;
  for (auto* fn : {add_layer_norm, add_layer_norm_ref}) {
    std::vector<float> y(4);
    fn(x.data(), residual.data(), gamma.data(), beta.data(), y.data(), 1, 4, 0.0f);
    check_close(y, want, 1e-6f, 1e-6f);
    const std::vector<float> plain = {1, 2, 3, 4}, ones = {1, 1, 1, 1}, zeros = {0, 0, 0, 0};
    fn(plain.data(), nullptr, ones.data(), zeros.data(), y.data(), 1, 4, 0.0f);
    check_close(y, kNormalized, 1e-6f, 1e-6f);
    // eps enters under the square root: var 1.25 + eps 0.75 = 2.
    fn(plain.data(), nullptr, ones.data(), zeros.data(), y.data(), 1, 4, 0.75f);
    const std::vector<float> wider = {-1.06066017f, -0.35355339f, 0.35355339f, 1.06066017f};
    check_close(y, wider, 1e-6f, 1e-6f);
  }
}

TEST_CASE("add_layer_norm of a single column is beta") {
  const float x = 7, gamma = 3, beta = -0.5f;
  float y = 0;
  add_layer_norm(&x, nullptr, &gamma, &beta, &y, 1, 1, 1e-5f);
  CHECK(y == -0.5f);
}

TEST_CASE("add_layer_norm matches the reference on odd sizes, with and without residual") {
  for (size_t d : testing::kOddSizes) {
    const size_t rows = 3;
    const auto x = random_floats(rows * d, -4, 4, 1);
    const auto residual = random_floats(rows * d, -1, 1, 2);
    const auto gamma = random_floats(d, 0.5f, 1.5f, 3);
    const auto beta = random_floats(d, -0.5f, 0.5f, 4);
    for (const float* res : {static_cast<const float*>(nullptr), residual.data()}) {
      CAPTURE(d);
      std::vector<float> got(rows * d), want(rows * d);
      add_layer_norm(x.data(), res, gamma.data(), beta.data(), got.data(), rows, d, 1e-5f);
      add_layer_norm_ref(x.data(), res, gamma.data(), beta.data(), want.data(), rows, d, 1e-5f);
      check_close(got, want, 1e-5f, 1e-5f);
    }
  }
}

TEST_CASE("add_layer_norm in place over x or over the residual") {
  const size_t rows = 2, d = 257;
  const auto x = random_floats(rows * d, -4, 4, 5);
  const auto residual = random_floats(rows * d, -1, 1, 6);
  const auto gamma = random_floats(d, 0.5f, 1.5f, 7);
  const auto beta = random_floats(d, -0.5f, 0.5f, 8);
  std::vector<float> want(rows * d);
  add_layer_norm_ref(x.data(), residual.data(), gamma.data(), beta.data(), want.data(), rows, d,
                     1e-5f);
  auto over_x = x;
  add_layer_norm(over_x.data(), residual.data(), gamma.data(), beta.data(), over_x.data(), rows, d,
                 1e-5f);
  check_close(over_x, want, 1e-5f, 1e-5f);
  auto over_residual = residual;
  add_layer_norm(x.data(), over_residual.data(), gamma.data(), beta.data(), over_residual.data(),
                 rows, d, 1e-5f);
  check_close(over_residual, want, 1e-5f, 1e-5f);
}

TEST_CASE("add_layer_norm stays accurate on a large common offset") {
  // A one-pass E[x^2] - E[x]^2 loses every digit here; the two-pass variance does not.
  const size_t d = 64;
  auto x = random_floats(d, -1, 1, 9);
  for (float& v : x) v += 1000.0f;
  const std::vector<float> gamma(d, 1.0f), beta(d, 0.0f);
  std::vector<float> got(d), want(d);
  add_layer_norm(x.data(), nullptr, gamma.data(), beta.data(), got.data(), 1, d, 1e-5f);
  add_layer_norm_ref(x.data(), nullptr, gamma.data(), beta.data(), want.data(), 1, d, 1e-5f);
  check_close(got, want, 1e-3f, 1e-3f);
}

}  // namespace
}  // namespace pmt::kernels
