// Layer normalization fused with the residual add in front of it (every post-LN sublayer ends
// with y = LN(x + sublayer(x))). No allocation; the caller owns every buffer.
#pragma once

#include <cstddef>

namespace pmt::kernels {

// For each of `rows` rows of `d` contiguous floats (row stride d):
//   s = x[r,:] + residual[r,:]            (residual may be null: s = x[r,:])
//   y[r,:] = (s - mean(s)) / sqrt(var(s) + eps) * gamma + beta
// var is the biased variance (sum of squares / d), as PyTorch's LayerNorm. gamma, beta: [d].
// y may be the same pointer as x or as residual (not a partial overlap).
void add_layer_norm(const float* x, const float* residual, const float* gamma, const float* beta,
                    float* y, size_t rows, size_t d, float eps);
// Plain scalar reference (double accumulation) the optimized kernel is tested against.
void add_layer_norm_ref(const float* x, const float* residual, const float* gamma,
                        const float* beta, float* y, size_t rows, size_t d, float eps);

}  // namespace pmt::kernels
