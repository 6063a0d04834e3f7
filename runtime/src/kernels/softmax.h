// Softmax and log-softmax over one contiguous vector of n >= 1 floats. Numerically stable (the
// maximum is subtracted first), so any finite logits work; -inf entries (masked) get probability 0
// as long as one entry is finite.
#pragma once

#include <cstddef>

namespace pmt::kernels {

// x[i] <- exp(x[i] - max) / sum_j exp(x[j] - max), in place.
void softmax(float* x, size_t n);
// y[i] = x[i] - max - log(sum_j exp(x[j] - max)). y may be the same pointer as x.
void log_softmax(const float* x, float* y, size_t n);

// Plain scalar references (std::exp, double accumulation).
void softmax_ref(float* x, size_t n);
void log_softmax_ref(const float* x, float* y, size_t n);

}  // namespace pmt::kernels
