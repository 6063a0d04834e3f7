// The vocabulary shortlist: with it, search picks among a sentence's candidates exactly what the
// full logits (teacher-forced, no shortlist) would pick among them, whatever else is in the batch.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "runtime_test_util.h"

namespace pmt::test {
namespace {

// Frequent pieces {5, 9}; source piece s lists (s * 7) % V and (s * 11 + 3) % V (kept ascending).
exporter::Shortlist hand_shortlist(int32_t V) {
  exporter::Shortlist list;
  list.frequent = {5, 9};
  list.offsets.push_back(0);
  for (int32_t s = 0; s < V; ++s) {
    std::set<uint16_t> ids = {static_cast<uint16_t>(s * 7 % V), static_cast<uint16_t>((s * 11 + 3) % V)};
    list.targets.insert(list.targets.end(), ids.begin(), ids.end());
    list.offsets.push_back(static_cast<uint32_t>(list.targets.size()));
  }
  return list;
}

// The candidates of one sentence, as Network::select_columns documents them.
std::vector<bool> candidates(const exporter::Shortlist& list, const ModelConfig& c, std::vector<int32_t> source) {
  std::vector<bool> in(c.vocab_size, false);
  for (int32_t t : list.frequent) in[t] = true;
  source.push_back(c.eos_id);  // the encoder's input: EOS is a source piece too
  for (int32_t s : source) {
    in[s] = true;
    for (uint32_t k = list.offsets[s]; k < list.offsets[s + 1]; ++k) in[list.targets[k]] = true;
  }
  return in;
}

TEST_CASE("greedy search with the shortlist takes the best candidate of the full logits at every step") {
  const ModelConfig c = tiny_config();
  const size_t V = c.vocab_size;
  auto model = make_model(c, 1);
  model->init(23);
  const exporter::Shortlist list = hand_shortlist(c.vocab_size);
  const ModelBytes bytes = export_model(*model, DType::F32, 1.1, {}, &list);
  auto t = load(bytes, {.max_batch = 3, .max_src_len = 32, .max_tgt_len = 24});
  CHECK(t->has_shortlist());
  const ModelBytes without = export_model(*model, DType::F32);
  CHECK(!load(without, {})->has_shortlist());

  std::mt19937 rng(7);
  std::vector<std::vector<int32_t>> src;
  for (size_t n : {5, 8, 3}) src.push_back(random_ids(rng, n, c.vocab_size));

  TranslateOptions options{.beam = 1, .max_len = 12};
  REQUIRE(t->translate_ids(spans(src), options).ok());
  std::vector<std::vector<int32_t>> out;
  std::vector<float> got_log_prob;
  for (const Translation& r : t->results()) {
    REQUIRE(r.status.ok());
    out.emplace_back(r.tokens.begin(), r.tokens.end());
    got_log_prob.push_back(r.log_prob);
  }

  // The reference: the full logits of the same prefixes, from teacher forcing without shortlist.
  const std::vector<std::vector<float>> full = step_logits(t.get(), src, out);
  for (size_t b = 0; b < src.size(); ++b) {
    CAPTURE(b);
    const std::vector<bool> in = candidates(list, c, src[b]);
    REQUIRE(std::count(in.begin(), in.end(), true) < static_cast<long>(V) / 2);  // a real restriction
    const size_t steps = out[b].size() + (t->results()[b].complete ? 1 : 0);
    double want_log_prob = 0;
    for (size_t k = 0; k < steps; ++k) {
      const float* row = full[b].data() + k * V;
      const int32_t token = k < out[b].size() ? out[b][k] : c.eos_id;
      CHECK(in[token]);
      float best = -INFINITY;
      std::vector<float> masked;
      for (size_t v = 0; v < V; ++v)
        if (in[v]) {
          best = std::max(best, row[v]);
          masked.push_back(row[v]);
        }
      CHECK(row[token] >= best - 1e-5f);
      // The log-probability is normalized over the candidates only.
      const auto column = static_cast<size_t>(std::count(in.begin(), in.begin() + token, true));
      want_log_prob += log_prob(masked.data(), masked.size(), static_cast<int32_t>(column));
    }
    CHECK(got_log_prob[b] == doctest::Approx(want_log_prob).epsilon(1e-4));
  }
}

TEST_CASE("a shortlist of every token gives the same translations as none; beam search keeps to the candidates") {
  const ModelConfig c = tiny_config();
  auto model = make_model(c, 1);
  model->init(31);
  exporter::Shortlist all;
  for (int32_t v = 0; v < c.vocab_size; ++v) all.frequent.push_back(v);
  all.offsets.assign(static_cast<size_t>(c.vocab_size) + 1, 0);
  const exporter::Shortlist some = hand_shortlist(c.vocab_size);
  std::mt19937 rng(3);
  std::vector<std::vector<int32_t>> src;
  for (size_t n : {6, 2, 9, 4}) src.push_back(random_ids(rng, n, c.vocab_size));
  const LoadOptions limits{.max_batch = 4, .max_src_len = 32, .max_tgt_len = 24, .max_beam = 3};
  for (const DType dtype : {DType::F32, DType::I8}) {
    CAPTURE(dtype_name(dtype));
    const ModelBytes with_all = export_model(*model, dtype, 1.1, {}, &all);
    const ModelBytes with_some = export_model(*model, dtype, 1.1, {}, &some);
    auto t_all = load(with_all, limits);
    auto t_some = load(with_some, limits);
    for (const int32_t beam : {1, 3}) {
      CAPTURE(beam);
      TranslateOptions on{.beam = beam, .max_len = 16}, off = on;
      off.shortlist = false;
      // fp32: every logit is the same dot product either way up to rounding. int8 without the
      // shortlist ranks by coarse logits refined for the best 32 only, which can differ.
      if (dtype == DType::F32) {
        REQUIRE(t_all->translate_ids(spans(src), on).ok());
        std::vector<std::vector<int32_t>> a;
        for (const Translation& r : t_all->results()) a.emplace_back(r.tokens.begin(), r.tokens.end());
        REQUIRE(t_all->translate_ids(spans(src), off).ok());
        for (size_t b = 0; b < src.size(); ++b)
          CHECK(std::vector<int32_t>(t_all->results()[b].tokens.begin(), t_all->results()[b].tokens.end()) == a[b]);
      }
      REQUIRE(t_some->translate_ids(spans(src), on).ok());
      std::vector<std::vector<int32_t>> batched;
      for (size_t b = 0; b < src.size(); ++b) {
        const Translation& r = t_some->results()[b];
        const std::vector<bool> in = candidates(some, c, src[b]);
        for (int32_t token : r.tokens) {
          CAPTURE(token);
          CHECK(in[token]);
        }
        batched.emplace_back(r.tokens.begin(), r.tokens.end());
      }
      // A sentence's translation does not depend on the rest of its batch.
      for (size_t b = 0; b < src.size(); ++b) {
        const std::span<const int32_t> one[] = {src[b]};
        REQUIRE(t_some->translate_ids(one, on).ok());
        CHECK(std::vector<int32_t>(t_some->results()[0].tokens.begin(), t_some->results()[0].tokens.end()) ==
              batched[b]);
      }
    }
  }
}

}  // namespace
}  // namespace pmt::test
