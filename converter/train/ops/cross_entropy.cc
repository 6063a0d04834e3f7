#include "train/ops/cross_entropy.h"

#include <cmath>

#include "train/ops/vector_math.h"

namespace pmt::train {

double cross_entropy_forward(float* lse, long* count, const float* logits, const int32_t* targets, long n, int v,
                             float smoothing, int32_t ignore_id) {
  double total = 0.0;
  long counted = 0;
  for (long r = 0; r < n; ++r) {
    const float* z = logits + r * v;
    const float m = max_lanes(z, v);
    float acc[kLanes] = {};
    int j = 0;
    for (; j + kLanes <= v; j += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += exp_fast(z[j + l] - m);
    float sum_exp = 0.f;
    for (; j < v; ++j) sum_exp += exp_fast(z[j] - m);
    for (int l = 0; l < kLanes; ++l) sum_exp += acc[l];
    lse[r] = m + std::log(sum_exp);
    if (targets[r] == ignore_id) continue;
    // -sum_j q_j log p_j with log p_j = z_j - lse and sum_j q_j = 1.
    total += lse[r] - (1.f - smoothing) * z[targets[r]] - smoothing / v * sum_lanes(z, v);
    ++counted;
  }
  *count = counted;
  return total;
}

void cross_entropy_backward(float* dlogits, const float* logits, const float* lse, const int32_t* targets, long n,
                            int v, float smoothing, int32_t ignore_id, float row_weight) {
  const float uniform = row_weight * smoothing / v;
  for (long r = 0; r < n; ++r) {
    const float* z = logits + r * v;
    float* g = dlogits + r * v;
    if (targets[r] == ignore_id) {
      for (int j = 0; j < v; ++j) g[j] = 0.f;
      continue;
    }
    const float l = lse[r];
    for (int j = 0; j < v; ++j) g[j] = row_weight * exp_fast(z[j] - l) - uniform;
    g[targets[r]] -= row_weight * (1.f - smoothing);
  }
}

}  // namespace pmt::train
