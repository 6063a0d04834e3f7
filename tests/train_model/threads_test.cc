// Loss and gradients must not depend on the thread count: dropout masks come from a counter-based
// hash and every split op writes disjoint slices.
#include <cblas.h>
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "train/model.h"

namespace pmt::train {
namespace {

TEST_CASE("loss and gradients are the same on 1 and 2 threads") {
  ModelConfig config;
  REQUIRE(preset_config("tiny", &config));
  // Large enough that the cross-entropy rows and element-wise ops are split across threads.
  Batch batch;
  batch.batch = 32;
  batch.src_len = 16;
  batch.tgt_len = 64;
  std::mt19937 gen(1);
  for (int i = 0; i < batch.batch * batch.src_len; ++i) batch.src.push_back(4 + gen() % 60);
  for (int i = 0; i < batch.batch * batch.tgt_len; ++i) {
    batch.tgt_in.push_back(4 + gen() % 60);
    batch.tgt_out.push_back(i % 7 ? 4 + gen() % 60 : kPadId);
  }
  Transformer model(config, BatchLimits{batch.batch, batch.src_len, batch.tgt_len});
  model.init(5);
  model.set_attention_dropout(0.1f);
  const int saved_threads = openblas_get_num_threads();
  auto run = [&](int threads, std::vector<float>* grads) {
    openblas_set_num_threads(threads);
    const float loss = model.forward(batch, true, DropoutRng{3, 4});
    model.zero_grad();
    model.backward();
    grads->assign(model.grads(), model.grads() + model.num_params());
    return loss;
  };
  std::vector<float> g1, g2;
  const float loss1 = run(1, &g1);
  const float loss2 = run(2, &g2);
  openblas_set_num_threads(saved_threads);
  CHECK(std::abs(loss1 - loss2) <= 1e-6f * loss1);
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < g1.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(g1[i] - g2[i])));
    scale = std::max(scale, static_cast<double>(std::abs(g1[i])));
  }
  CHECK(diff <= 1e-6 * scale);
}

}  // namespace
}  // namespace pmt::train
