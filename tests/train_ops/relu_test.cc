#include "train/ops/relu.h"

#include <doctest/doctest.h>

#include "gradient_check.h"

namespace pmt::train {
namespace {

TEST_CASE("relu forward and backward") {
  // Inputs kept away from the kink at 0 so finite differences are exact.
  std::vector<float> x = {-2.f, -0.5f, 0.5f, 3.f, -1.f, 1.f};
  const std::vector<float> r = {1.f, 2.f, 3.f, 4.f, 5.f, 6.f};
  std::vector<float> y(x.size());
  relu_forward(y.data(), x.data(), static_cast<long>(x.size()));
  CHECK(y == std::vector<float>{0.f, 0.f, 0.5f, 3.f, 0.f, 1.f});
  std::vector<float> d = r;  // d(loss)/d(y), turned into d(loss)/d(x) in place
  relu_backward(d.data(), y.data(), static_cast<long>(x.size()));
  CHECK(d == std::vector<float>{0.f, 0.f, 3.f, 4.f, 0.f, 6.f});
  auto loss = [&] {
    relu_forward(y.data(), x.data(), static_cast<long>(x.size()));
    return test::weighted_sum(y.data(), r);
  };
  CHECK(test::relative_error(d.data(), test::numeric_gradient(x, loss)) < 1e-4);
}

}  // namespace
}  // namespace pmt::train
