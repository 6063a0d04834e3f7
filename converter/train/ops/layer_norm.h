// Layer normalisation over the last dimension with PyTorch semantics (biased variance, eps inside
// the square root): y = (x - mean) / sqrt(var + eps) * w + b.
#pragma once

namespace pmt::train {

// x, y: [n, d]; w, b: [d]; mean, rstd: [n] saved for the backward pass. y may not alias x.
void layer_norm_forward(float* y, float* mean, float* rstd, const float* x, const float* w, const float* b,
                        int n, int d, float eps);

// Accumulates dx[n, d], dw[d], db[d] from dy[n, d], using x and the saved mean / rstd.
void layer_norm_backward(float* dx, float* dw, float* db, const float* dy, const float* x, const float* mean,
                         const float* rstd, const float* w, int n, int d);

}  // namespace pmt::train
