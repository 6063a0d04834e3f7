#include "kernels/softmax.h"

#include <cmath>

#include "kernels/simd.h"
#include "kernels/softmax_inl.h"

namespace pmt::kernels {

PMT_MULTIVERSION
void PMT_KERNEL(softmax)(float* x, size_t n) { softmax_inplace(x, n); }

PMT_MULTIVERSION
void PMT_KERNEL(log_softmax)(const float* x, float* y, size_t n) {
  const float m = simd::max(x, n);
  const float log_z = m + std::log(sum_exp(x, m, nullptr, n));
  for (size_t j = 0; j < n; ++j) y[j] = x[j] - log_z;
}

#if !defined(PMT_NEON_COPY)  // the references and the rest are compiled once
void softmax_ref(float* x, size_t n) {
  float m = x[0];
  for (size_t i = 1; i < n; ++i) m = std::fmax(m, x[i]);
  double z = 0.0;
  for (size_t i = 0; i < n; ++i) z += std::exp(static_cast<double>(x[i]) - m);
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(std::exp(static_cast<double>(x[i]) - m) / z);
}

void log_softmax_ref(const float* x, float* y, size_t n) {
  float m = x[0];
  for (size_t i = 1; i < n; ++i) m = std::fmax(m, x[i]);
  double z = 0.0;
  for (size_t i = 0; i < n; ++i) z += std::exp(static_cast<double>(x[i]) - m);
  const double log_z = m + std::log(z);
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i] - log_z);
}
#endif

}  // namespace pmt::kernels
