#include "train/ops/dropout.h"

#include <doctest/doctest.h>

#include "gradient_check.h"

namespace pmt::train {
namespace {

TEST_CASE("dropout drops about p of the elements and rescales the rest") {
  const long n = 100000;
  const float p = 0.1f;
  const std::vector<float> x(n, 2.f);
  std::vector<float> y(n);
  const DropoutMask mask(p, 42, 7, 3);
  dropout_forward(y.data(), x.data(), n, mask);
  long dropped = 0;
  for (float v : y) {
    if (v == 0.f) {
      ++dropped;
    } else {
      CHECK(v == doctest::Approx(2.0 / (1.0 - p)).epsilon(1e-4));
    }
  }
  CHECK(static_cast<double>(dropped) / n == doctest::Approx(p).epsilon(0.05));
}

TEST_CASE("dropout masks depend only on (seed, step, site, index)") {
  const long n = 1001;
  const auto x = test::random_vector(n, 1, 0.5f, 1.f);
  std::vector<float> whole(n), parts(n), other(n);
  const DropoutMask mask(0.5f, 1, 2, 3);
  dropout_forward(whole.data(), x.data(), n, mask);
  // Any split of the range (as threads would do) gives the same mask, the odd split included.
  dropout_forward(parts.data(), x.data(), 333, mask);
  dropout_forward(parts.data() + 333, x.data() + 333, n - 333, mask, 333);
  CHECK(whole == parts);
  for (long i = 0; i < n; ++i) CHECK(whole[i] == x[i] * mask.factor(i));  // the per-element definition
  for (const DropoutMask& m : {DropoutMask(0.5f, 9, 2, 3), DropoutMask(0.5f, 1, 3, 3), DropoutMask(0.5f, 1, 2, 4)}) {
    dropout_forward(other.data(), x.data(), n, m);
    CHECK(other != whole);
  }
}

TEST_CASE("dropout backward applies the forward mask; p = 0 is the identity") {
  const long n = 257;
  auto x = test::random_vector(n, 2), res = test::random_vector(n, 3);
  const auto r = test::random_vector(n, 4);
  const DropoutMask mask(0.3f, 5, 6, 7);
  std::vector<float> y(n);
  auto loss = [&] {
    dropout_add_forward(y.data(), res.data(), x.data(), n, mask, 11);
    return test::weighted_sum(y.data(), r);
  };
  std::vector<float> dx(n, 0.f);
  dropout_backward(dx.data(), r.data(), n, mask, 11);
  CHECK(test::relative_error(dx.data(), test::numeric_gradient(x, loss)) < 1e-4);
  // d/d(res) of res + dropout(x) is the identity.
  CHECK(test::relative_error(r.data(), test::numeric_gradient(res, loss)) < 1e-4);

  dropout_forward(y.data(), x.data(), n, DropoutMask(0.f, 5, 6, 7));
  CHECK(y == x);
}

}  // namespace
}  // namespace pmt::train
