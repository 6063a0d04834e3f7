// Rectified linear unit, element-wise over n floats.
#pragma once

namespace pmt::train {

void relu_forward(float* y, const float* x, long n);  // y = max(x, 0); y may alias x
// dx += dy where y > 0 (y is the forward output, so the pre-activation need not be kept).
void relu_backward(float* dx, const float* dy, const float* y, long n);

}  // namespace pmt::train
