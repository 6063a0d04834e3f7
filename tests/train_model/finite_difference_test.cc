// The whole tiny model's gradients against central finite differences of its own loss, for a
// few sampled entries of every parameter tensor (independent of the PyTorch fixture), with
// dropout on so the forward and backward masks must agree too.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "train/model.h"

namespace pmt::train {
namespace {

Batch random_batch(int batch, int src_len, int tgt_len, int vocab, uint32_t seed) {
  std::mt19937 gen(seed);
  Batch b;
  b.batch = batch;
  b.src_len = src_len;
  b.tgt_len = tgt_len;
  b.src.assign(batch * src_len, kPadId);
  b.tgt_in.assign(batch * tgt_len, kPadId);
  b.tgt_out.assign(batch * tgt_len, kPadId);
  for (int r = 0; r < batch; ++r) {
    // Row r is shorter than the longest, so there is padding on both sides.
    const int ls = src_len - 1 - r % 2, lt = tgt_len - 1 - (r + 1) % 2;
    for (int t = 0; t < ls; ++t) b.src[r * src_len + t] = 4 + static_cast<int>(gen() % (vocab - 4));
    b.src[r * src_len + ls] = kEosId;
    b.tgt_in[r * tgt_len] = kBosId;
    for (int t = 0; t < lt; ++t) {
      const int id = 4 + static_cast<int>(gen() % (vocab - 4));
      b.tgt_out[r * tgt_len + t] = id;
      b.tgt_in[r * tgt_len + t + 1] = id;
    }
    b.tgt_out[r * tgt_len + lt] = kEosId;
  }
  return b;
}

void check_finite_differences(bool pre_ln) {
  ModelConfig config;
  REQUIRE(preset_config("tiny", &config));
  config.pre_ln = pre_ln;
  config.dropout = 0.2f;
  const Batch batch = random_batch(3, 6, 5, config.vocab_size, 5);
  Transformer model(config, BatchLimits{4, 8, 8});
  model.init(11);
  model.set_attention_dropout(0.1f);
  // Non-trivial norms and biases so their gradients are not special cases.
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  for (const TensorInfo& t : model.tensors())
    if (t.shape.size() == 1)
      for (size_t i = 0; i < t.numel; ++i) model.params()[t.offset + i] += u(gen);

  const DropoutRng rng{17, 3};
  model.forward(batch, true, rng);
  model.zero_grad();
  model.backward();

  // Central differences of a loss computed in float. Their error has two parts: truncation,
  // O(h^2), which 2 % of the tensor's largest gradient covers, and the loss's rounding error over
  // the step, which depends on the BLAS kernels' summation order (OpenBLAS's SkylakeX, Sandybridge
  // and Prescott kernels, armhf) and has no fixed bound. So it is measured at each sampled entry:
  // the loss at p + d for steps d far below h, less its first-order change g d, is rounding noise
  // only (an error in g adds |g error| d, negligible at these d). A large step can cross a ReLU
  // kink, a small one drowns in the noise: a correct gradient agrees with the estimate at one of
  // the steps; a wrong one disagrees at all of them.
  const float steps[] = {1e-2f, 3e-3f, 1e-3f};
  const float noise_steps[] = {-2e-5f, -1e-5f, 1e-5f, 2e-5f};
  for (const TensorInfo& t : model.tensors()) {
    // Per entry, the smallest over the steps of |analytic - numeric| less that step's rounding
    // allowance; the largest of those must be within 2 % of the tensor's largest gradient.
    double worst = 0.0, worst_excess = -INFINITY, scale = 1e-6;
    for (int s = 0; s < 4; ++s) {
      const size_t i = t.offset + gen() % t.numel;
      float& p = model.params()[i];
      const float saved = p;
      const double g = model.grads()[i];
      const double at_p = model.forward(batch, true, rng);
      double noise = 0.0;
      for (float d : noise_steps) {
        p = saved + d;
        const double moved = static_cast<double>(p) - saved;  // the step p really took
        noise = std::max(noise, std::abs(model.forward(batch, true, rng) - at_p - g * moved));
      }
      double best = INFINITY, best_excess = INFINITY;
      for (float h : steps) {
        p = saved + h;
        const double hi = p;
        const double up = model.forward(batch, true, rng);
        p = saved - h;
        const double lo = p;
        const double down = model.forward(batch, true, rng);
        const double numeric = (up - down) / (hi - lo);
        // Two evaluations each off by up to `noise` (twice the largest of four samples, as
        // margin), over the step hi - lo.
        const double rounding = 2.0 * (2.0 * noise) / (hi - lo);
        best = std::min(best, std::abs(numeric - g));
        best_excess = std::min(best_excess, std::abs(numeric - g) - rounding);
        scale = std::max(scale, std::abs(numeric));
      }
      p = saved;
      worst = std::max(worst, best);
      worst_excess = std::max(worst_excess, best_excess);
    }
    CHECK_MESSAGE(worst_excess < 2e-2 * scale, t.name, ": max |analytic - numeric| ", worst, " for max |numeric| ", scale);
  }
}

TEST_CASE("tiny post-LN model gradients match finite differences") { check_finite_differences(false); }

TEST_CASE("tiny pre-LN model gradients match finite differences") { check_finite_differences(true); }

}  // namespace
}  // namespace pmt::train
