// Helpers shared by the kernel tests: seeded random inputs and an element-wise closeness check.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pmt::kernels::testing {

// Sizes that exercise the vector body, the tail and the one-element case.
inline constexpr size_t kOddSizes[] = {1, 3, 17, 64, 257};

inline std::vector<float> random_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// Every got[i] within abs_tol + rel_tol * |want[i]| of want[i]; reports the first miss.
inline void check_close(const float* got, const float* want, size_t n, float rel_tol,
                        float abs_tol) {
  for (size_t i = 0; i < n; ++i) {
    const double error = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (error <= abs_tol + rel_tol * std::fabs(want[i])) continue;
    INFO("index " << i << " of " << n << ": got " << got[i] << ", want " << want[i]);
    CHECK(error <= abs_tol + rel_tol * std::fabs(want[i]));
    return;
  }
}

inline void check_close(const std::vector<float>& got, const std::vector<float>& want,
                        float rel_tol, float abs_tol) {
  REQUIRE(got.size() == want.size());
  check_close(got.data(), want.data(), got.size(), rel_tol, abs_tol);
}

}  // namespace pmt::kernels::testing
