// Fully connected layer Y = X W^T + b on flat row-major float arrays (PyTorch nn.Linear layout).
// Backward functions ACCUMULATE (+=) into every gradient they are given, as all trainer ops do.
#pragma once

namespace pmt::train {

// y[n, out] = x[n, in] * w[out, in]^T + b[out]. b may be null (no bias).
void linear_forward(float* y, const float* x, const float* w, const float* b, int n, int in, int out);

// Given dy[n, out]: dx[n, in] += dy * w; dw[out, in] += dy^T * x; db[out] += sum over rows of dy.
// dx or db may be null to skip them.
void linear_backward(float* dx, float* dw, float* db, const float* dy, const float* x, const float* w,
                     int n, int in, int out);

}  // namespace pmt::train
