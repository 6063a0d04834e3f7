// Greedy decoding: every emitted token is the argmax of a separate teacher-forced forward pass
// over (source, BOS + hypothesis), hypotheses end where that pass predicts EOS or at the length
// cap, and batching (sorting, finished rows leaving) does not change the result.
#include <cblas.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "train/batching.h"
#include "train/greedy.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace pmt;
using namespace pmt::train;

TEST_CASE("greedy decoding emits the argmax of each prefix and stops at EOS or the cap") {
  openblas_set_num_threads(1);
  const ModelConfig config = test::tiny_config(0.f, 0.f);
  // A little training on copy-or-reverse, so that hypotheses end with EOS at various lengths.
  const ParallelData data = test::copy_or_reverse(2000, 64, 8, 3);
  Batcher batcher(&data, 400, 1);
  BatchLimits limits = batcher.limits();
  limits.max_batch = std::max(limits.max_batch, 8);
  limits.max_src_len = std::max(limits.max_src_len, 12);
  limits.max_tgt_len = 20;
  limits.max_tgt_tokens = std::max<int64_t>(limits.max_tgt_tokens, 160);
  Transformer model(config, limits);
  model.init(4);
  Adam adam(model.num_params());
  Batch batch;
  batcher.plan_epoch(0);
  for (size_t b = 0; b < 60; ++b) {
    batcher.fill(b % batcher.num_batches(), &batch);
    REQUIRE(train_step(&model, &adam, batch, DropoutRng{}, 3e-3f, 1.0).finite());
  }
  std::mt19937 rng(7);
  std::vector<std::vector<int32_t>> storage;
  for (int i = 0; i < 7; ++i) {
    std::vector<int32_t> s(2 + rng() % 10);
    for (auto& id : s) id = static_cast<int32_t>(4 + rng() % 60);
    s.back() = kEosId;
    storage.push_back(s);
  }
  std::vector<std::span<const int32_t>> sources(storage.begin(), storage.end());
  GreedyOptions options;
  options.max_batch = 3;  // several chunks
  options.batch_tokens = 60;
  options.extra_len = 6;
  const auto hyps = greedy_decode(&model, sources, 20, options);
  REQUIRE(hyps.size() == sources.size());

  Batch one;
  size_t stopped_by_eos = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    const auto& h = hyps[i];
    const size_t cap = sources[i].size() + 6;  // tokens a row may produce, EOS included
    REQUIRE(h.size() <= cap);
    const int32_t L = static_cast<int32_t>(h.size()) + 1;
    one.batch = 1;
    one.src_len = static_cast<int32_t>(sources[i].size());
    one.tgt_len = L;
    one.src.assign(sources[i].begin(), sources[i].end());
    one.tgt_in.assign(1, kBosId);
    one.tgt_in.insert(one.tgt_in.end(), h.begin(), h.end());
    one.tgt_out.assign(static_cast<size_t>(L), kEosId);
    model.forward(one, false, DropoutRng{});
    const int V = config.vocab_size;
    auto argmax = [&](int32_t t) {
      const float* row = model.logits() + static_cast<size_t>(t) * V;
      return static_cast<int32_t>(std::max_element(row, row + V) - row);
    };
    for (int32_t t = 0; t + 1 < L; ++t) CHECK(argmax(t) == h[t]);
    if (h.size() < cap) {
      CHECK(argmax(L - 1) == kEosId);
      ++stopped_by_eos;
    }
  }
  MESSAGE(stopped_by_eos << " of " << sources.size() << " hypotheses ended with EOS before the cap");
  CHECK(stopped_by_eos > 0);
  CHECK(stopped_by_eos < sources.size());
}
