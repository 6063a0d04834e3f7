#include "train/ops/linear.h"

#include "train/ops/gemm.h"

namespace pmt::train {

void linear_forward(float* y, const float* x, const float* w, const float* b, int n, int in, int out) {
  float beta = 0.f;
  if (b) {
    // Seed every row with the bias so the GEMM adds the product onto it in one pass.
    for (int r = 0; r < n; ++r) {
      float* row = y + static_cast<long>(r) * out;
      for (int j = 0; j < out; ++j) row[j] = b[j];
    }
    beta = 1.f;
  }
  gemm(false, true, n, out, in, 1.f, x, in, w, in, beta, y, out);
}

void linear_backward(float* dx, InputGrad mode, float* dw, float* db, const float* dy, const float* x,
                     const float* w, int n, int in, int out) {
  const float beta = mode == InputGrad::kAccumulate ? 1.f : 0.f;
  gemm(false, false, n, in, out, 1.f, dy, out, w, in, beta, dx, in);
  gemm(true, false, out, in, n, 1.f, dy, out, x, in, 1.f, dw, in);
  if (db) {
    for (int r = 0; r < n; ++r) {
      const float* row = dy + static_cast<long>(r) * out;
      for (int j = 0; j < out; ++j) db[j] += row[j];
    }
  }
}

}  // namespace pmt::train
