// The optimizer of the paper: Adam (beta1 0.9, beta2 0.98, eps 1e-9) with bias correction as in
// PyTorch's torch.optim.Adam, the warm-up / inverse-square-root learning-rate schedule, and
// optional global-norm gradient clipping. All work on the model's flat parameter and gradient
// blobs; the two moments are one blob each, laid out like the parameters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pmt::train {

struct AdamConfig {
  float beta1 = 0.9f;
  float beta2 = 0.98f;
  float eps = 1e-9f;
};

class Adam {
 public:
  explicit Adam(size_t num_params, AdamConfig config = {});

  // One update: t += 1; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
  // p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps). Arrays hold size() floats.
  void step(float* params, const float* grads, float lr);

  size_t size() const { return m_.size(); }
  int64_t steps() const { return t_; }  // updates done (t of the bias correction)
  // Moments and step count, read and restored by checkpoints.
  float* m() { return m_.data(); }
  float* v() { return v_.data(); }
  const float* m() const { return m_.data(); }
  const float* v() const { return v_.data(); }
  void set_steps(int64_t t) { t_ = t; }

 private:
  AdamConfig config_;
  int64_t t_ = 0;
  std::vector<float> m_, v_;
};

// Learning rate at optimizer step `step` (1-based):
// scale * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5), rising linearly for `warmup` steps
// and decaying as 1/sqrt(step) after, peaking at scale * (d_model * warmup)^-0.5.
double noam_lr(int64_t step, int32_t d_model, int64_t warmup, double scale);
// Multiplier of the schedule at `step` (1-based) of a run of `steps` steps whose last `decay`
// steps cool down linearly: 1 before them, then (steps - step + 1) / decay, down to 1 / decay at
// the last step. Ending on a falling rate takes the loss below the plateau that a constant or
// 1/sqrt rate keeps it on. decay <= 0: always 1.
double decay_factor(int64_t step, int64_t steps, int64_t decay);

// L2 norm of all n gradients (accumulated in double, sequentially, so it is deterministic).
double grad_norm(const float* grads, size_t n);
// Scales the gradients by max_norm / norm when norm > max_norm (global-norm clipping as in
// torch.nn.utils.clip_grad_norm_); max_norm <= 0 disables. `norm` is grad_norm's result.
void clip_grads(float* grads, size_t n, double norm, double max_norm);

}  // namespace pmt::train
