// Rectified linear unit, element-wise over n floats.
#pragma once

namespace pmt::train {

void relu_forward(float* y, const float* x, long n);  // y = max(x, 0); y may alias x
// In place, d = d(loss)/d(y) becomes d(loss)/d(x): zeroed where y = 0. Uses the forward output,
// so the pre-activation need not be kept.
void relu_backward(float* d, const float* y, long n);

}  // namespace pmt::train
