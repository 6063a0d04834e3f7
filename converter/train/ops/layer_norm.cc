#include "train/ops/layer_norm.h"

#include <cmath>

namespace pmt::train {

void layer_norm_forward(float* y, float* mean, float* rstd, const float* x, const float* w, const float* b,
                        int n, int d, float eps) {
  for (int r = 0; r < n; ++r) {
    const float* xr = x + static_cast<long>(r) * d;
    float* yr = y + static_cast<long>(r) * d;
    float sum = 0.f;
    for (int i = 0; i < d; ++i) sum += xr[i];
    const float m = sum / d;
    float var = 0.f;  // two passes: no cancellation for rows with a large mean
    for (int i = 0; i < d; ++i) var += (xr[i] - m) * (xr[i] - m);
    const float s = 1.f / std::sqrt(var / d + eps);
    for (int i = 0; i < d; ++i) yr[i] = (xr[i] - m) * s * w[i] + b[i];
    mean[r] = m;
    rstd[r] = s;
  }
}

void layer_norm_backward(float* dx, float* dw, float* db, const float* dy, const float* x, const float* mean,
                         const float* rstd, const float* w, int n, int d) {
  for (int r = 0; r < n; ++r) {
    const float* xr = x + static_cast<long>(r) * d;
    const float* dyr = dy + static_cast<long>(r) * d;
    float* dxr = dx + static_cast<long>(r) * d;
    const float m = mean[r], s = rstd[r];
    // dx = s * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * w.
    float g_mean = 0.f, gx_mean = 0.f;
    for (int i = 0; i < d; ++i) {
      const float xhat = (xr[i] - m) * s;
      const float g = dyr[i] * w[i];
      g_mean += g;
      gx_mean += g * xhat;
      dw[i] += dyr[i] * xhat;
      db[i] += dyr[i];
    }
    g_mean /= d;
    gx_mean /= d;
    for (int i = 0; i < d; ++i) {
      const float xhat = (xr[i] - m) * s;
      dxr[i] += s * (dyr[i] * w[i] - g_mean - xhat * gx_mean);
    }
  }
}

}  // namespace pmt::train
