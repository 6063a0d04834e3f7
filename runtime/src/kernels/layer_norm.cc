#include "kernels/layer_norm.h"

#include <cmath>

#include "kernels/simd.h"

namespace pmt::kernels {

PMT_MULTIVERSION
void PMT_KERNEL(add_layer_norm)(const float* x, const float* residual, const float* gamma, const float* beta,
                    float* y, size_t rows, size_t d, float eps) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    // The sum goes to y first; y may be x or residual, which this elementwise pass allows.
    const float* s = xr;
    if (residual != nullptr) {
      const float* rr = residual + r * d;
      for (size_t i = 0; i < d; ++i) yr[i] = xr[i] + rr[i];
      s = yr;
    }
    const float mean = simd::sum(s, d) / static_cast<float>(d);
    // Two passes (mean, then squared deviations) avoid the cancellation of E[s^2] - E[s]^2.
    const simd::Vec vmean = simd::broadcast(mean);
    simd::Vec acc = {};
    size_t i = 0;
    for (; i + simd::kLanes <= d; i += simd::kLanes) {
      const simd::Vec dev = simd::load(s + i) - vmean;
      acc += dev * dev;
    }
    if (i < d) {  // padding lanes hold the mean: zero deviation
      const simd::Vec dev = simd::load_partial(s + i, d - i, mean) - vmean;
      acc += dev * dev;
    }
    const float rstd = 1.0f / std::sqrt(simd::hsum(acc) / static_cast<float>(d) + eps);
    for (size_t j = 0; j < d; ++j) yr[j] = (s[j] - mean) * rstd * gamma[j] + beta[j];
  }
}

#if !defined(PMT_NEON_COPY)  // the references and the rest are compiled once
void add_layer_norm_ref(const float* x, const float* residual, const float* gamma,
                        const float* beta, float* y, size_t rows, size_t d, float eps) {
  for (size_t r = 0; r < rows; ++r) {
    double mean = 0.0;
    for (size_t i = 0; i < d; ++i)
      mean += static_cast<double>(x[r * d + i]) + (residual ? residual[r * d + i] : 0.0f);
    mean /= static_cast<double>(d);
    double var = 0.0;
    for (size_t i = 0; i < d; ++i) {
      const double dev =
          static_cast<double>(x[r * d + i]) + (residual ? residual[r * d + i] : 0.0f) - mean;
      var += dev * dev;
    }
    var /= static_cast<double>(d);
    const double rstd = 1.0 / std::sqrt(var + static_cast<double>(eps));
    for (size_t i = 0; i < d; ++i) {
      const double s = static_cast<double>(x[r * d + i]) + (residual ? residual[r * d + i] : 0.0f);
      y[r * d + i] = static_cast<float>((s - mean) * rstd * gamma[i] + beta[i]);
    }
  }
}
#endif

}  // namespace pmt::kernels
