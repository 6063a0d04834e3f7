// Fully connected layer Y = X W^T + b on flat row-major float arrays (PyTorch nn.Linear layout).
// Parameter gradients are always accumulated (+=); the input gradient is written or accumulated
// as the caller chooses, which saves zeroing a buffer that only this product would fill.
#pragma once

namespace pmt::train {

enum class InputGrad { kWrite, kAccumulate };

// y[n, out] = x[n, in] * w[out, in]^T + b[out]. b may be null (no bias).
void linear_forward(float* y, const float* x, const float* w, const float* b, int n, int in, int out);

// Given dy[n, out]: dx[n, in] (= or +=, per mode) dy * w; dw[out, in] += dy^T * x;
// db[out] += sum over rows of dy. db may be null (no bias).
void linear_backward(float* dx, InputGrad mode, float* dw, float* db, const float* dy, const float* x,
                     const float* w, int n, int in, int out);

}  // namespace pmt::train
