// The repetition block (TranslateOptions::no_repeat_ngram) on a random tiny model, whose greedy
// and beam outputs loop: checked against an independent count of each output's n-grams.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <vector>

#include "runtime_test_util.h"

namespace pmt::test {
namespace {

// The largest number of times one n-gram occurs in `tokens`.
int most_repeated_ngram(std::span<const int32_t> tokens, size_t n) {
  std::map<std::vector<int32_t>, int> counts;
  int most = 0;
  for (size_t i = 0; i + n <= tokens.size(); ++i)
    most = std::max(most, ++counts[std::vector<int32_t>(tokens.begin() + i, tokens.begin() + i + n)]);
  return most;
}

TEST_CASE("no output n-gram occurs twice with no_repeat_ngram, in greedy and beam search") {
  const ModelConfig c = tiny_config();
  auto model = make_model(c, 8);
  model->init(5);
  std::mt19937 rng(3);
  std::vector<std::vector<int32_t>> sources;
  for (size_t n : {3, 9, 1, 14, 6, 20, 2, 11}) sources.push_back(random_ids(rng, n, c.vocab_size));
  const ModelBytes bytes = export_model(*model, DType::F32);
  auto t = load(bytes, {.max_batch = 8, .max_src_len = 32, .max_tgt_len = 48, .max_beam = 4});
  for (const int32_t beam : {1, 4}) {
    // Without the block the random model repeats itself, so the check below can fail.
    REQUIRE(t->translate_ids(spans(sources), {.beam = beam, .max_len = 48}).ok());
    int looping = 0;
    for (const Translation& r : t->results()) looping += most_repeated_ngram(r.tokens, 3) > 1;
    CHECK(looping > 0);
    for (const int32_t n : {1, 2, 3, 4}) {
      INFO("beam " << beam << ", no_repeat_ngram " << n);
      REQUIRE(t->translate_ids(spans(sources), {.beam = beam, .max_len = 48, .no_repeat_ngram = n}).ok());
      for (const Translation& r : t->results()) {
        REQUIRE(r.status.ok());
        CHECK(most_repeated_ngram(r.tokens, n) <= 1);
      }
    }
  }
  CHECK(t->translate_ids(spans(sources), {.no_repeat_ngram = -1}).code() == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace pmt::test
