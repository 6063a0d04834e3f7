#include "train/adam.h"

#include <algorithm>
#include <cmath>

#include "kernels/simd.h"  // runtime/src: PMT_MULTIVERSION

namespace pmt::train {

Adam::Adam(size_t num_params, AdamConfig config) : config_(config), m_(num_params, 0.f), v_(num_params, 0.f) {}

// Multiversioned and built with -fno-math-errno (sqrt need not set errno, which kept the loop
// scalar): sqrt and division round the same in every vector width.
PMT_MULTIVERSION
void Adam::step(float* params, const float* grads, float lr) {
  ++t_;
  const double bias1 = 1.0 - std::pow(static_cast<double>(config_.beta1), static_cast<double>(t_));
  const double bias2 = 1.0 - std::pow(static_cast<double>(config_.beta2), static_cast<double>(t_));
  const float step_size = static_cast<float>(lr / bias1);
  const float inv_sqrt_bias2 = static_cast<float>(1.0 / std::sqrt(bias2));
  const float b1 = config_.beta1, b2 = config_.beta2, eps = config_.eps;
  float* m = m_.data();
  float* v = v_.data();
  const size_t n = m_.size();
  for (size_t i = 0; i < n; ++i) {
    const float g = grads[i];
    m[i] = b1 * m[i] + (1.f - b1) * g;
    v[i] = b2 * v[i] + (1.f - b2) * g * g;
    params[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bias2 + eps);
  }
}

double noam_lr(int64_t step, int32_t d_model, int64_t warmup, double scale) {
  const auto s = static_cast<double>(std::max<int64_t>(step, 1));
  const auto w = static_cast<double>(std::max<int64_t>(warmup, 1));
  return scale / std::sqrt(static_cast<double>(d_model)) * std::min(1.0 / std::sqrt(s), s * std::pow(w, -1.5));
}

double decay_factor(int64_t step, int64_t steps, int64_t decay) {
  if (decay <= 0) return 1.0;
  return std::clamp(static_cast<double>(steps - step + 1) / static_cast<double>(decay), 0.0, 1.0);
}

double grad_norm(const float* grads, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(grads[i]) * grads[i];
  return std::sqrt(sum);
}

void clip_grads(float* grads, size_t n, double norm, double max_norm) {
  if (max_norm <= 0.0 || !(norm > max_norm)) return;
  const auto factor = static_cast<float>(max_norm / (norm + 1e-6));
  for (size_t i = 0; i < n; ++i) grads[i] *= factor;
}

}  // namespace pmt::train
