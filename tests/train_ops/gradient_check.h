// Central finite differences for the trainer's op tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace pmt::train::test {

inline std::vector<float> random_vector(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(gen);
  return v;
}

// sum_i a[i] * w[i] in double: the scalar "loss" whose gradient w.r.t. a is w.
inline double weighted_sum(const float* a, const std::vector<float>& w) {
  double s = 0.0;
  for (size_t i = 0; i < w.size(); ++i) s += static_cast<double>(a[i]) * w[i];
  return s;
}

// max |a - b| / max(max |b|, tiny): relative to the reference's scale, robust to tiny entries.
inline double relative_error(const float* a, const std::vector<double>& b) {
  double diff = 0.0, scale = 1e-12;
  for (size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

// d loss / d x[i] for every i by central differences, perturbing x in place and restoring it.
inline std::vector<double> numeric_gradient(std::vector<float>& x, const std::function<double()>& loss,
                                            float h = 1e-2f) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float saved = x[i];
    x[i] = saved + h;
    const double up = loss();
    x[i] = saved - h;
    const double down = loss();
    x[i] = saved;
    g[i] = (up - down) / (2.0 * h);
  }
  return g;
}

}  // namespace pmt::train::test
