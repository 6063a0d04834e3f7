#include "train/ops/embedding.h"

#include <doctest/doctest.h>

#include <cmath>

#include "gradient_check.h"

namespace pmt::train {
namespace {

TEST_CASE("sinusoidal positions follow the paper's formula") {
  const int len = 4, d = 6;
  std::vector<float> pe(len * d);
  sinusoidal_positions(pe.data(), len, d);
  CHECK(pe[0] == 0.f);
  CHECK(pe[1] == 1.f);
  CHECK(pe[1 * d + 0] == doctest::Approx(std::sin(1.0)));
  CHECK(pe[1 * d + 1] == doctest::Approx(std::cos(1.0)));
  CHECK(pe[3 * d + 2] == doctest::Approx(std::sin(3.0 / std::pow(10000.0, 2.0 / 6))));
  CHECK(pe[2 * d + 5] == doctest::Approx(std::cos(2.0 / std::pow(10000.0, 4.0 / 6))));
}

TEST_CASE("embedding forward scales rows and adds positions; backward matches finite differences") {
  const int vocab = 5, d = 4, batch = 2, len = 3;
  auto table = test::random_vector(vocab * d, 1);
  std::vector<float> pe(len * d);
  sinusoidal_positions(pe.data(), len, d);
  const std::vector<int32_t> ids = {1, 3, 1, 0, 4, 4};  // repeated ids accumulate
  const float scale = 2.f;
  std::vector<float> out(batch * len * d);
  embedding_forward(out.data(), ids.data(), batch, len, table.data(), pe.data(), d, scale);
  CHECK(out[(1 * len + 2) * d + 1] == doctest::Approx(table[4 * d + 1] * scale + pe[2 * d + 1]));
  CHECK(out[(0 * len + 1) * d + 0] == doctest::Approx(table[3 * d + 0] * scale + pe[1 * d + 0]));

  const auto r = test::random_vector(out.size(), 2);
  auto loss = [&] {
    embedding_forward(out.data(), ids.data(), batch, len, table.data(), pe.data(), d, scale);
    return test::weighted_sum(out.data(), r);
  };
  std::vector<float> dtable(table.size(), 0.f);
  embedding_backward(dtable.data(), r.data(), ids.data(), batch * len, d, scale);
  CHECK(test::relative_error(dtable.data(), test::numeric_gradient(table, loss)) < 1e-4);
  for (int i = 0; i < d; ++i) CHECK(dtable[2 * d + i] == 0.f);  // id 2 unused
}

}  // namespace
}  // namespace pmt::train
