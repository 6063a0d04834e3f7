#include "kernels/softmax.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/simd.h"

namespace pmt::kernels {
namespace {

using testing::check_close;
using testing::random_floats;

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST_CASE("simd::exp is within 1e-6 relative of std::exp over its range") {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.01f) {
    const double want = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::fabs(simd::exp(x) - want) / want);
  }
  CHECK(worst < 1e-6);
  CHECK(simd::exp(0.0f) == 1.0f);
  CHECK(simd::exp(-100.0f) == 0.0f);
  // Issue 14, finding 3: NaN reached an undefined float -> int conversion; now a finite value.
  CHECK(std::isfinite(simd::exp(NAN)));
  CHECK(simd::exp(INFINITY) == simd::exp(88.3f));
  CHECK(simd::exp(-INFINITY) == 0.0f);
  CHECK(simd::exp(-kInf) == 0.0f);
  CHECK(simd::exp(100.0f) == doctest::Approx(std::exp(static_cast<double>(88.3f))).epsilon(1e-6));
}

TEST_CASE("softmax and log_softmax and their references match hand-computed values") {
  // exp of [0, ln 2, ln 3] is [1, 2, 3]: probabilities [1, 2, 3] / 6.
  const std::vector<float> logits = {0.0f, std::log(2.0f), std::log(3.0f)};
  const std::vector<float> probs = {1 / 6.0f, 2 / 6.0f, 3 / 6.0f};
  const std::vector<float> log_probs = {std::log(1 / 6.0f), std::log(2 / 6.0f), std::log(3 / 6.0f)};
  for (auto* fn : {softmax, softmax_ref}) {
    auto x = logits;
    fn(x.data(), x.size());
    check_close(x, probs, 1e-6f, 0);
  }
  for (auto* fn : {log_softmax, log_softmax_ref}) {
    std::vector<float> y(3);
    fn(logits.data(), y.data(), y.size());
    check_close(y, log_probs, 1e-6f, 0);
  }
}

TEST_CASE("softmax and log_softmax match the reference on odd sizes") {
  for (size_t n : {size_t{1}, size_t{3}, size_t{17}, size_t{64}, size_t{257}, size_t{8000}}) {
    CAPTURE(n);
    const auto logits = random_floats(n, -20, 20, static_cast<uint32_t>(n));
    auto got = logits, want = logits;
    softmax(got.data(), n);
    softmax_ref(want.data(), n);
    check_close(got, want, 1e-5f, 1e-9f);
    std::vector<float> log_got(n), log_want(n);
    log_softmax(logits.data(), log_got.data(), n);
    log_softmax_ref(logits.data(), log_want.data(), n);
    check_close(log_got, log_want, 1e-6f, 1e-5f);
    auto in_place = logits;
    log_softmax(in_place.data(), in_place.data(), n);
    check_close(in_place, log_want, 1e-6f, 1e-5f);
  }
}

TEST_CASE("softmax of equal logits is uniform") {
  for (size_t n : testing::kOddSizes) {
    std::vector<float> x(n, 42.0f);
    softmax(x.data(), n);
    check_close(x, std::vector<float>(n, 1.0f / static_cast<float>(n)), 1e-6f, 0);
    std::vector<float> y(n);
    log_softmax(std::vector<float>(n, -7.0f).data(), y.data(), n);
    check_close(y, std::vector<float>(n, -std::log(static_cast<float>(n))), 1e-6f, 1e-6f);
  }
}

TEST_CASE("softmax is stable on huge and tiny logits and gives masked entries zero") {
  std::vector<float> huge = {1e30f, 1e30f, -1e30f, 0.0f};
  softmax(huge.data(), huge.size());
  check_close(huge, {0.5f, 0.5f, 0.0f, 0.0f}, 1e-6f, 0);

  std::vector<float> tiny = {-1e30f, -1e30f + 1e24f, -3e30f};  // the middle one wins outright
  softmax(tiny.data(), tiny.size());
  check_close(tiny, {0.0f, 1.0f, 0.0f}, 1e-6f, 0);

  std::vector<float> shifted = {1000.0f, 1000.0f + std::log(3.0f)};
  softmax(shifted.data(), shifted.size());
  check_close(shifted, {0.25f, 0.75f}, 1e-4f, 0);  // 1000 + ln 3 is stored to within 3e-5

  std::vector<float> masked(20, 1.0f);
  for (size_t i = 1; i < masked.size(); i += 2) masked[i] = -kInf;
  softmax(masked.data(), masked.size());
  for (size_t i = 0; i < masked.size(); ++i) CHECK(masked[i] == (i % 2 ? 0.0f : 0.1f));

  const std::vector<float> logits = {-kInf, 0.0f, 2e30f, -5.0f};
  std::vector<float> y(4);
  log_softmax(logits.data(), y.data(), 4);
  CHECK(y[0] == -kInf);
  CHECK(y[1] == -2e30f);
  CHECK(y[2] == 0.0f);
}

}  // namespace
}  // namespace pmt::kernels
