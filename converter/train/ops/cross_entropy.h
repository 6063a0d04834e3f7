// Log-softmax fused with label-smoothed negative log-likelihood, PyTorch's
// F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad) convention: the target
// distribution puts 1 - eps + eps/V on the target class and eps/V on every class (the target too).
#pragma once

#include <cstdint>

namespace pmt::train {

// logits: [n, v]. Rows whose target == ignore_id carry no loss. Returns the SUM of the counted
// rows' losses (so row ranges can be summed) and WRITES their gradient in the same pass over the
// exponentials (the vocabulary-wide softmax is the costly part of both):
// dlogits[n, v] = row_weight * (softmax(logits) - target distribution), zero on ignored rows.
// row_weight is d(loss)/d(one row's loss): 1 / (number of counted rows) for the mean loss.
double cross_entropy_forward_backward(float* dlogits, const float* logits, const int32_t* targets, long n, int v,
                                      float smoothing, int32_t ignore_id, float row_weight);

}  // namespace pmt::train
