#include "train/ops/layer_norm.h"

#include <algorithm>
#include <cmath>

namespace pmt::train {

namespace {
// The forward normalizes kRows rows at a time with their sums side by side: one row's in-order
// sum waits on every add (about 4 cycles each), while kRows independent chains overlap in the
// pipeline. Each row still adds in its own order, so the results are those of one row at a time.
constexpr int kRows = 8;
}  // namespace

void layer_norm_forward(float* y, float* mean, float* rstd, const float* x, const float* w, const float* b,
                        int n, int d, float eps) {
  for (int r0 = 0; r0 < n; r0 += kRows) {
    const int rows = std::min(kRows, n - r0);
    const float* x0 = x + static_cast<long>(r0) * d;
    float m[kRows] = {}, var[kRows] = {};
    for (int i = 0; i < d; ++i)
      for (int k = 0; k < rows; ++k) m[k] += x0[static_cast<long>(k) * d + i];
    for (int k = 0; k < rows; ++k) m[k] /= d;
    // Two passes: no cancellation for rows with a large mean.
    for (int i = 0; i < d; ++i) {
      for (int k = 0; k < rows; ++k) {
        const float c = x0[static_cast<long>(k) * d + i] - m[k];
        var[k] += c * c;
      }
    }
    for (int k = 0; k < rows; ++k) {
      const float* xr = x0 + static_cast<long>(k) * d;
      float* yr = y + static_cast<long>(r0 + k) * d;
      const float s = 1.f / std::sqrt(var[k] / d + eps);
      for (int i = 0; i < d; ++i) yr[i] = (xr[i] - m[k]) * s * w[i] + b[i];
      mean[r0 + k] = m[k];
      rstd[r0 + k] = s;
    }
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
