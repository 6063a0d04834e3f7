#include "kernels/top_k.h"

#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "kernel_test_util.h"

namespace pmt::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

using TopKFn = decltype(&top_k);
using ArgmaxFn = decltype(&argmax);

TEST_CASE("top_k and argmax and their references match hand-picked answers") {
  const std::vector<float> x = {1, 5, 3, 5, -kInf, 2, 5};
  for (TopKFn fn : {top_k, top_k_ref}) {
    std::vector<int32_t> idx(4);
    std::vector<float> val(4);
    fn(x.data(), x.size(), 4, idx.data(), val.data());
    CHECK(idx == std::vector<int32_t>{1, 3, 6, 2});
    CHECK(val == std::vector<float>{5, 5, 5, 3});
    fn(x.data(), x.size(), 1, idx.data(), val.data());
    CHECK(idx[0] == 1);
  }
  for (ArgmaxFn fn : {argmax, argmax_ref}) {
    CHECK(fn(x.data(), x.size()) == 1);
    CHECK(fn(x.data(), 1) == 0);
    CHECK(fn(x.data() + 4, 3) == 2);
  }
}

TEST_CASE("top_k of all-equal and all -inf rows keeps index order") {
  for (float fill : {0.5f, -kInf}) {
    const std::vector<float> x(40, fill);
    std::vector<int32_t> idx(5);
    std::vector<float> val(5);
    top_k(x.data(), x.size(), 5, idx.data(), val.data());
    CHECK(idx == std::vector<int32_t>{0, 1, 2, 3, 4});
    CHECK(argmax(x.data(), x.size()) == 0);
  }
  // k = n returns the whole row sorted.
  const std::vector<float> x = {2, -1, 7};
  std::vector<int32_t> idx(3);
  std::vector<float> val(3);
  top_k(x.data(), 3, 3, idx.data(), val.data());
  CHECK(idx == std::vector<int32_t>{2, 0, 1});
}

TEST_CASE("top_k and argmax match the references on rows with many ties") {
  for (size_t n : {size_t{1}, size_t{3}, size_t{17}, size_t{64}, size_t{257}, size_t{8000}}) {
    // Values drawn from a few levels, so ties across the k-th place are common.
    auto x = testing::random_floats(n, 0, 6, static_cast<uint32_t>(n));
    for (float& v : x) v = static_cast<float>(static_cast<int>(v));
    CHECK(argmax(x.data(), n) == argmax_ref(x.data(), n));
    for (size_t k = 1; k <= 8 && k <= n; ++k) {
      CAPTURE(n);
      CAPTURE(k);
      std::vector<int32_t> idx(k), idx_ref(k);
      std::vector<float> val(k), val_ref(k);
      top_k(x.data(), n, k, idx.data(), val.data());
      top_k_ref(x.data(), n, k, idx_ref.data(), val_ref.data());
      CHECK(idx == idx_ref);
      CHECK(val == val_ref);
    }
    // Increasing rows make every entry an improvement: the slow path of the scan.
    std::vector<float> rising(n);
    for (size_t i = 0; i < n; ++i) rising[i] = static_cast<float>(i);
    CHECK(argmax(rising.data(), n) == n - 1);
  }
}

}  // namespace
}  // namespace pmt::kernels
