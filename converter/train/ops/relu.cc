#include "train/ops/relu.h"

namespace pmt::train {

void relu_forward(float* y, const float* x, long n) {
  for (long i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

void relu_backward(float* d, const float* y, long n) {
  for (long i = 0; i < n; ++i) d[i] = y[i] > 0.f ? d[i] : 0.f;
}

}  // namespace pmt::train
