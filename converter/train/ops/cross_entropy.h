// Log-softmax fused with label-smoothed negative log-likelihood, PyTorch's
// F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad) convention: the target
// distribution puts 1 - eps + eps/V on the target class and eps/V on every class (the target too).
#pragma once

#include <cstdint>

namespace pmt::train {

// logits: [n, v]. Rows whose target == ignore_id carry no loss. Saves each row's log-sum-exp in
// lse[n] and returns the SUM of the counted rows' losses (so row ranges can be summed); *count
// gets their number.
double cross_entropy_forward(float* lse, long* count, const float* logits, const int32_t* targets, long n, int v,
                             float smoothing, int32_t ignore_id);

// WRITES dlogits[n, v] = row_weight * (softmax(logits) - target distribution), zero on ignored rows.
// row_weight is d(loss)/d(one row's loss): 1 / count for the mean loss.
void cross_entropy_backward(float* dlogits, const float* logits, const float* lse, const int32_t* targets, long n,
                            int v, float smoothing, int32_t ignore_id, float row_weight);

}  // namespace pmt::train
