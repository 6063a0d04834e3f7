// The fp32 runtime against the trainer's fp32 forward pass on the same checkpoint: the logits of
// every teacher-forced decoder step of a padded batch, and greedy decoding.
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "runtime_test_util.h"
#include "train/greedy.h"

namespace pmt::test {
namespace {

// src_lens: the four sources' lengths without EOS. With `shortlist` the file carries one, so it
// has no packed output layer and scores every token from its embedding rows.
void check_teacher_forced_logits(bool pre_ln, const std::array<size_t, 4>& src_lens = {5, 17, 1, 30},
                                 const exporter::Shortlist* shortlist = nullptr) {
  const ModelConfig c = tiny_config(pre_ln);
  const size_t V = c.vocab_size;
  auto model = make_model(c, 4);
  model->init(pre_ln ? 21 : 11);
  std::mt19937 rng(3);
  // Different source and target lengths, so padding and per-sentence attention both matter.
  const std::vector<Pair> pairs = {{random_ids(rng, src_lens[0], c.vocab_size), random_ids(rng, 9, c.vocab_size)},
                                   {random_ids(rng, src_lens[1], c.vocab_size), random_ids(rng, 3, c.vocab_size)},
                                   {random_ids(rng, src_lens[2], c.vocab_size), random_ids(rng, 12, c.vocab_size)},
                                   {random_ids(rng, src_lens[3], c.vocab_size), {}}};
  int32_t T = 0;
  const std::vector<float> expected = trainer_logits(model.get(), pairs, &T);

  const ModelBytes bytes = export_model(*model, DType::F32, 1.1, {}, shortlist);
  auto translator = load(bytes, {.max_batch = 4, .max_src_len = 64, .max_tgt_len = 64});
  REQUIRE(translator->config().pre_ln == pre_ln);
  REQUIRE(translator->has_shortlist() == (shortlist != nullptr));
  std::vector<std::vector<int32_t>> src, tgt;
  for (const Pair& p : pairs) {
    src.push_back(p.src);
    tgt.push_back(p.tgt);
  }
  // Every step's logits, [b][step][V], as the runtime reports them.
  std::vector<std::vector<float>> got(pairs.size());
  std::vector<int32_t> steps(pairs.size(), 0);
  struct Capture {
    std::vector<std::vector<float>>* got;
    std::vector<int32_t>* steps;
  } capture{&got, &steps};
  LogitsCallback on_step{[](void* user, const StepLogits& s) {
                           auto* cap = static_cast<Capture*>(user);
                           CHECK(s.step == (*cap->steps)[s.sentence]);  // in order, none skipped
                           ++(*cap->steps)[s.sentence];
                           auto& out = (*cap->got)[s.sentence];
                           out.insert(out.end(), s.logits.begin(), s.logits.end());
                         },
                         &capture};
  std::vector<float> log_probs(pairs.size());
  const Status s = translator->score_ids(spans(src), spans(tgt), log_probs, on_step);
  REQUIRE_MESSAGE(s.ok(), s.message());

  double worst = 0;
  for (size_t b = 0; b < pairs.size(); ++b) {
    const size_t n_steps = pairs[b].tgt.size() + 1;  // BOS + target predicts target + EOS
    REQUIRE(got[b].size() == n_steps * V);
    double reference_log_prob = 0;
    for (size_t t = 0; t < n_steps; ++t) {
      const float* want = expected.data() + (b * T + t) * V;
      for (size_t v = 0; v < V; ++v) worst = std::max(worst, double{std::fabs(got[b][t * V + v] - want[v])});
      reference_log_prob += log_prob(want, V, t < pairs[b].tgt.size() ? pairs[b].tgt[t] : kEosId);
    }
    CHECK(log_probs[b] == doctest::Approx(reference_log_prob).epsilon(1e-5));
  }
  MESSAGE("largest |runtime - trainer| logit difference: " << worst);
  CHECK(worst <= 1e-4);
}

TEST_CASE("fp32 runtime logits equal the trainer's forward at every teacher-forced step (post-LN)") {
  check_teacher_forced_logits(false);
}

TEST_CASE("fp32 runtime logits equal the trainer's forward at every teacher-forced step (pre-LN)") {
  check_teacher_forced_logits(true);
}

TEST_CASE("fp32 runtime logits of a file with a shortlist, every token scored, equal the trainer's forward") {
  exporter::Shortlist list;
  list.frequent = {5, 9};
  list.offsets.assign(65, 0);  // the tiny preset's 64 pieces, no per-piece lists
  check_teacher_forced_logits(false, {5, 17, 1, 30}, &list);
}

TEST_CASE("fp32 runtime logits equal the trainer's forward when the batch takes several encoder passes") {
  // 59 + 41 + 50 + 63 rows with EOS: more than the encoder's 128 rows per pass, so the runtime
  // encodes the batch in groups ([0, 1], then [2, 3]) and each group's keys and values must land
  // at their sentences' place.
  check_teacher_forced_logits(false, {58, 40, 49, 62});
}

TEST_CASE("fp32 runtime greedy search equals the trainer's greedy decoding on a batch") {
  const ModelConfig c = tiny_config();
  auto model = make_model(c, 6);
  model->init(7);
  std::mt19937 rng(9);
  std::vector<std::vector<int32_t>> sources;
  for (size_t n : {4, 11, 1, 7, 20, 2}) sources.push_back(random_ids(rng, n, c.vocab_size));

  // The trainer decodes sources with their EOS; both cap the output at source + 50 tokens (the
  // runtime told so: its default bound is 2 x source + 10) and
  // at the 64 positions of the tiny model.
  std::vector<std::vector<int32_t>> with_eos = sources;
  for (auto& s : with_eos) s.push_back(kEosId);
  const auto expected = train::greedy_decode(model.get(), spans(with_eos), c.max_len, train::GreedyOptions{});

  const ModelBytes bytes = export_model(*model, DType::F32);
  auto translator = load(bytes, {.max_batch = 6, .max_src_len = 32, .max_tgt_len = 64});
  const Status s = translator->translate_ids(spans(sources), {.beam = 1, .max_len_ratio = 1.f, .max_len_extra = 50});
  REQUIRE_MESSAGE(s.ok(), s.message());
  REQUIRE(translator->results().size() == sources.size());
  for (size_t b = 0; b < sources.size(); ++b) {
    const Translation& r = translator->results()[b];
    REQUIRE(r.status.ok());
    INFO("sentence " << b << ": runtime " << r.tokens.size() << " tokens, trainer " << expected[b].size());
    CHECK(std::vector<int32_t>(r.tokens.begin(), r.tokens.end()) == expected[b]);
  }
}

}  // namespace
}  // namespace pmt::test
