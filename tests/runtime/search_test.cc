// Beam search: with k = 1 it is greedy search (an independent implementation of the same rule),
// and on a model built so that greedy's first choice is a trap it finds the better translation.
#include <xnnpack.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "arena.h"
#include "network.h"
#include "pocketmt/model_file.h"
#include "runtime_test_util.h"
#include "search.h"
#include "thread_pool.h"

namespace pmt::test {
namespace {

// The runtime's network and search without the Translator, to call both searches directly.
struct Engine {
  Engine(ModelBytes model, const rt::NetworkLimits& limits) : bytes(std::move(model)), pool(1), search(&network) {
    std::string error;
    file = ModelFile::from_buffer(bytes.data(), bytes.size(), &error);
    REQUIRE_MESSAGE(file != nullptr, error);
    REQUIRE(xnn_initialize(nullptr) == xnn_status_success);
    error = network.create(*file, limits, &pool, false);
    REQUIRE_MESSAGE(error.empty(), error);
    rt::ArenaLayout measure;
    network.bind(measure);
    search.bind(measure);
    REQUIRE(arena.allocate(measure.bytes()));
    rt::ArenaLayout layout(arena.data());
    network.bind(layout);
    search.bind(layout);
  }

  ModelBytes bytes;  // read in place by the network
  std::unique_ptr<ModelFile> file;
  rt::ThreadPool pool;
  rt::Network network;
  rt::Search search;
  rt::Arena arena;
};

struct Result {
  std::vector<int32_t> tokens;
  float log_prob, score;
  bool complete;
};

std::vector<Result> copy_out(const std::vector<rt::Hypothesis>& h) {
  std::vector<Result> out;
  for (const rt::Hypothesis& x : h) out.push_back({{x.tokens, x.tokens + x.length}, x.log_prob, x.score, x.complete});
  return out;
}

TEST_CASE("beam search with k = 1 equals greedy search") {
  const ModelConfig c = tiny_config();
  for (uint64_t seed : {1u, 2u, 3u}) {
    auto model = make_model(c, 1);
    model->init(seed);
    Engine e(export_model(*model, DType::F32), {.max_batch = 5, .max_src_len = 24, .max_tgt_len = 40, .max_beam = 4});
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::vector<std::vector<int32_t>> sources;
    for (size_t n : {3, 9, 1, 15, 6}) {
      sources.push_back(random_ids(rng, n, c.vocab_size));
      sources.back().push_back(kEosId);
    }
    // Short limits for some sentences, so both ways of ending (EOS, length) are compared.
    const std::vector<int32_t> max_len = {40, 5, 40, 12, 1};
    e.network.encode(spans(sources), false);
    std::vector<rt::Hypothesis> greedy(sources.size()), beam(sources.size());
    e.search.greedy(sources.size(), max_len.data(), {.alpha = 0.6f}, {}, greedy.data());
    const std::vector<Result> g = copy_out(greedy);
    e.search.beam(sources.size(), 1, max_len.data(), {.alpha = 0.6f}, {}, beam.data());
    const std::vector<Result> b = copy_out(beam);
    for (size_t i = 0; i < sources.size(); ++i) {
      CAPTURE(seed);
      CAPTURE(i);
      CHECK(b[i].tokens == g[i].tokens);
      CHECK(b[i].log_prob == g[i].log_prob);
      CHECK(b[i].score == g[i].score);
      CHECK(b[i].complete == g[i].complete);
      CHECK(static_cast<int32_t>(g[i].tokens.size() + (g[i].complete ? 1 : 0)) <= max_len[i]);
    }
  }
}

// A post-LN tiny model whose decoder ignores the source and maps the current token to the next
// token's distribution through the last FFN (all other sublayers output zero):
//   after BOS: A (logit 3.0) and B (logit 2.8) ahead of everything else (logit 0);
//   after A:   every token equally likely (logit 0), so greedy's continuation is improbable;
//   after B:   EOS (logit 8), nearly certain.
// Greedy takes A and then wanders; beam search finds "B EOS".
constexpr int32_t kA = 4, kB = 5;

void build_trap_model(train::Transformer* model) {
  const ModelConfig& c = model->config();
  const size_t D = c.d_model, F = c.d_ff;
  float* p = model->params();
  std::fill(p, p + model->num_params(), 0.f);
  auto tensor = [&](const std::string& name) {
    const train::TensorInfo* t = model->find(name);
    REQUIRE_MESSAGE(t != nullptr, name);
    return p + t->offset;
  };
  for (const train::TensorInfo& t : model->tensors())
    if (t.name.find("norm") != std::string::npos && t.name.ends_with(".weight")) std::fill_n(p + t.offset, t.numel, 1.f);

  // Orthonormal zero-mean directions f_i = (e_i - e_{i+D/2}) / sqrt(2): LayerNorm maps c * f_i to
  // sqrt(D) * f_i, whatever the scale c.
  auto f = [&](size_t i) {
    std::vector<double> v(D, 0.0);
    v[i] = std::sqrt(0.5);
    v[i + D / 2] = -std::sqrt(0.5);
    return v;
  };
  const std::vector<double> f_bos = f(0), f_a = f(1), f_b = f(2), f_eos = f(3), f_free = f(4);
  // Large embeddings make the positional encodings negligible next to them.
  const double scale = 20.0, s = std::sqrt(static_cast<double>(D)) * scale;  // logit = s * (u . f_v)
  float* embed = tensor("embed.weight");
  for (auto [id, dir] : {std::pair{kBosId, &f_bos}, {kA, &f_a}, {kB, &f_b}, {kEosId, &f_eos}})
    for (size_t d = 0; d < D; ++d) embed[id * D + d] = static_cast<float>(scale * (*dir)[d]);

  // u_t: the unit decoder state after token t (mostly f_free, which no embedding uses).
  auto unit = [&](std::vector<std::pair<double, const std::vector<double>*>> terms) {
    std::vector<double> u(D, 0.0);
    for (auto [w, dir] : terms)
      for (size_t d = 0; d < D; ++d) u[d] += w * (*dir)[d];
    double n = 0;
    for (double x : u) n += x * x;
    for (double& x : u) x /= std::sqrt(n);
    return u;
  };
  const std::vector<double> u_bos = unit({{1.0, &f_free}, {3.0 / s, &f_a}, {2.8 / s, &f_b}});
  const std::vector<double> u_a = unit({{1.0, &f_free}});
  const std::vector<double> u_b = unit({{1.0, &f_free}, {8.0 / s, &f_eos}});

  // Last decoder FFN: relu(x + beta) - beta = x for |x| < beta, so FFN(x) = M x with
  // M = G - I and G = sum_t u_t f_t^T; the layer's output LN(x + FFN(x)) = LN(G x) = sqrt(D) u_t.
  const std::string ffn = "decoder.layers." + std::to_string(c.n_dec_layers - 1);
  const double beta = 10.0;
  float* w1 = tensor(ffn + ".linear1.weight");  // [F, D]
  float* b1 = tensor(ffn + ".linear1.bias");
  float* w2 = tensor(ffn + ".linear2.weight");  // [D, F]
  float* b2 = tensor(ffn + ".linear2.bias");
  for (size_t d = 0; d < D; ++d) {
    w1[d * D + d] = 1.f;
    b1[d] = static_cast<float>(beta);
  }
  for (size_t i = 0; i < D; ++i) {
    double row_sum = 0;
    for (size_t j = 0; j < D; ++j) {
      double g = 0;
      for (auto [u, fv] : {std::pair{&u_bos, &f_bos}, {&u_a, &f_a}, {&u_b, &f_b}}) g += (*u)[i] * (*fv)[j];
      const double m = g - (i == j ? 1.0 : 0.0);
      w2[i * F + j] = static_cast<float>(m);
      row_sum += m;
    }
    b2[i] = static_cast<float>(-beta * row_sum);
  }
}

TEST_CASE("beam search finds a higher-scoring translation than greedy on a constructed model") {
  const ModelConfig c = tiny_config();
  auto model = make_model(c, 1);
  build_trap_model(model.get());
  const ModelBytes bytes = export_model(*model, DType::F32);
  auto translator = load(bytes, {.max_batch = 1, .max_src_len = 16, .max_tgt_len = 24});
  const std::vector<std::vector<int32_t>> source = {{7, 8, 9}};

  REQUIRE(translator->translate_ids(spans(source), {.beam = 1, .alpha = 0.f}).ok());
  const Translation greedy = translator->results()[0];
  const std::vector<int32_t> greedy_tokens(greedy.tokens.begin(), greedy.tokens.end());
  REQUIRE(translator->translate_ids(spans(source), {.beam = 4, .alpha = 0.f}).ok());
  const Translation beam = translator->results()[0];

  REQUIRE(!greedy_tokens.empty());
  CHECK(greedy_tokens[0] == kA);
  CHECK(std::vector<int32_t>(beam.tokens.begin(), beam.tokens.end()) == std::vector<int32_t>{kB});
  CHECK(beam.complete);
  CHECK(beam.log_prob > greedy.log_prob);

  // The trainer's own forward pass agrees on both scores, hence on which translation is better.
  const double trainer_beam = trainer_log_prob(model.get(), {source[0], {kB}}, true);
  const double trainer_greedy = trainer_log_prob(model.get(), {source[0], greedy_tokens}, greedy.complete);
  CHECK(beam.log_prob == doctest::Approx(trainer_beam).epsilon(1e-4));
  CHECK(greedy.log_prob == doctest::Approx(trainer_greedy).epsilon(1e-4));
  CHECK(trainer_beam > trainer_greedy);
  // By construction: P(B | BOS) = e^2.8 / (e^3 + e^2.8 + 62) and P(EOS | B) = e^8 / (e^8 + 63).
  const double designed = std::log(std::exp(2.8) / (std::exp(3.0) + std::exp(2.8) + 62.0)) +
                          std::log(std::exp(8.0) / (std::exp(8.0) + 63.0));
  CHECK(beam.log_prob == doctest::Approx(designed).epsilon(0.05));
}

// Number copying (the `numbers` argument of greedy and beam) on random tiny models, whose
// outputs would write digits anywhere: ids 10-19 stand for the digit pieces 0-9, id 20 for a
// second piece writing 3 (as a byte-fallback piece does) and id 21 for the separator. Checked
// with an independent reading of the numbers: the text the tokens write, matched by a regex.
std::vector<std::string> numbers_of(const std::vector<int32_t>& tokens) {
  std::string text;
  for (const int32_t t : tokens)
    text += t >= 10 && t <= 19 ? static_cast<char>('0' + t - 10) : t == 20 ? '3' : t == 21 ? ',' : ' ';
  static const std::regex number("[0-9]+(,[0-9]+)*");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  std::sort(out.begin(), out.end());
  return out;
}

constexpr float kLean = 3.f;
constexpr size_t kNoRepeat = 2;  // breaks the random model's loops (digits are exempt)

TEST_CASE("number copying: outputs write exactly the source's numbers, in greedy and beam search") {
  const ModelConfig c = tiny_config();
  int complete_with_numbers = 0, free_mismatches = 0;
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    auto model = make_model(c, 1);
    model->init(seed);
    // The last decoder norm's bias leans every output towards the digits, the separator and
    // EOS, so that numbers get written and outputs end (the rest of the model stays random).
    float* bias = model->params() + model->find("decoder.layers.1.norm3.bias")->offset;
    const float* embed = model->params() + model->find("embed.weight")->offset;
    for (const int32_t t : {kEosId, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21})
      for (int32_t j = 0; j < c.d_model; ++j) bias[j] += kLean * embed[t * c.d_model + j];
    Engine e(export_model(*model, DType::F32), {.max_batch = 6, .max_src_len = 32, .max_tgt_len = 64, .max_beam = 4});
    for (int32_t d = 0; d < 10; ++d) e.search.mark_digit_piece(10 + d, d);
    e.search.mark_digit_piece(20, 3);
    e.search.mark_number_separator(21);
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::uniform_int_distribution<int32_t> digit(10, 20), word(22, c.vocab_size - 1), count(0, 3), length(1, 4);
    std::vector<std::vector<int32_t>> sources;
    for (size_t i = 0; i < 6; ++i) {
      std::vector<int32_t> s;
      for (int32_t n = count(rng), k = 0; k < n; ++k) {  // words, then a number: 7 / 1,250 / 3,
        for (int32_t w = length(rng); w > 0; --w) s.push_back(word(rng));
        for (int32_t g = length(rng); g > 0; --g) s.push_back(digit(rng));
        if (k % 2 == 1) s.insert(s.end(), {21, digit(rng), digit(rng)});
        if (k == 2) s.push_back(21);  // a trailing separator is punctuation
      }
      s.push_back(word(rng));
      s.push_back(kEosId);
      sources.push_back(s);
    }
    const std::vector<int32_t> max_len(sources.size(), 64);
    e.network.encode(spans(sources), false);
    for (const size_t k : {size_t{1}, size_t{4}}) {
      for (const bool copy : {false, true}) {
        std::vector<rt::Hypothesis> h(sources.size());
        const auto numbers = copy ? spans(sources) : std::vector<std::span<const int32_t>>();
        if (k == 1)
          e.search.greedy(sources.size(), max_len.data(), {.alpha = 0.6f, .no_repeat = kNoRepeat}, {}, h.data(), numbers);
        else
          e.search.beam(sources.size(), k, max_len.data(), {.alpha = 0.6f, .no_repeat = kNoRepeat}, {}, h.data(), numbers);
        for (size_t i = 0; i < sources.size(); ++i) {
          CAPTURE(seed);
          CAPTURE(k);
          CAPTURE(i);
          const std::vector<int32_t> out(h[i].tokens, h[i].tokens + h[i].length);
          const std::vector<std::string> want = numbers_of(sources[i]), got = numbers_of(out);
          if (!copy) {
            free_mismatches += got != want;
            continue;
          }
          REQUIRE(std::isfinite(h[i].log_prob));
          if (h[i].complete) {
            CHECK(got == want);
            complete_with_numbers += !want.empty();
          } else {  // cut by max_len: the numbers it closed are some of the source's
            std::vector<int32_t> closed = out;
            while (!closed.empty() && closed.back() >= 10 && closed.back() <= 21) closed.pop_back();
            const std::vector<std::string> part = numbers_of(closed);
            CHECK(std::includes(want.begin(), want.end(), part.begin(), part.end()));
          }
        }
      }
    }
  }
  CHECK(free_mismatches > 0);  // without copying the check above fails
  CHECK(complete_with_numbers >= 8);
}

// The letter penalty on random tiny models leaning towards ids 30-39, given one-letter texts,
// most of them r or R, and towards "Ro" and "ma", beside pieces that begin or end in r: at every
// step greedy search takes the best token of the trainer's log-probabilities with the penalty
// subtracted from the letter pieces and -inf for a piece that continues a word and would make
// the letter the text so far ends with three in a row (case folded), or would be the same
// piece a third time in a row (inside a word or a whole word like " ja"); its log_prob is the sum of what it took.
TEST_CASE("letter penalty: greedy follows the trainer's log-probabilities minus the penalty, nothing thrice") {
  const ModelConfig c = tiny_config();
  const size_t V = c.vocab_size;
  constexpr int32_t kFirstLetter = 30, kLetters = 10;
  constexpr float kLetterLean = 1.f;  // letters common, yet not so far ahead that 0.2 changes nothing
  const std::string letter_texts = "rRrsSrrtRr";
  std::map<int32_t, std::string> texts;  // every other token writes "."
  for (int32_t t = 0; t < kLetters; ++t) texts[kFirstLetter + t] = letter_texts.substr(t, 1);
  texts[40] = "arr";  // ends in two r, more before them
  texts[41] = " rr";  // starts a word
  texts[42] = "rR";   // two r and nothing else
  texts[43] = "rra";  // begins with two r
  texts[44] = "Ro";
  texts[45] = "ma";
  texts[46] = " ja";  // a whole word
  // "ma" and " ja" three times in a row without the rule
  std::map<int32_t, float> lean = {{44, kLetterLean}, {45, 2.0f}, {46, 2.0f}};
  for (int32_t t = kFirstLetter; t < kFirstLetter + kLetters; ++t) lean[t] = kLetterLean;
  auto text_of = [&](int32_t t) { return texts.count(t) ? texts[t] : std::string("."); };
  auto is_letter = [](int32_t t) { return t >= kFirstLetter && t < kFirstLetter + kLetters; };
  // Whether piece v after out[0..n) would make a run of three of one letter (ASCII case fold)
  // from the run the text ends with and the one v begins with.
  auto third = [&](const std::vector<int32_t>& out, size_t n, int32_t v) {
    std::string text;
    for (size_t i = 0; i < n; ++i) text += text_of(out[i]);
    const std::string piece = text_of(v);
    auto fold = [](char ch) { return std::tolower(static_cast<unsigned char>(ch)); };
    if (text.empty() || !std::isalpha(static_cast<unsigned char>(piece[0]))) return false;
    const int letter = fold(piece[0]);
    size_t before = 0, after = 0;
    while (before < text.size() && fold(text[text.size() - 1 - before]) == letter) ++before;
    while (after < piece.size() && fold(piece[after]) == letter) ++after;
    return before >= 1 && before + after >= 3;
  };
  auto thrice = [&](const std::vector<int32_t>& out, size_t n, int32_t v) {
    const std::string piece = text_of(v);
    return n >= 2 && out[n - 1] == v && out[n - 2] == v &&
           (std::isalpha(static_cast<unsigned char>(piece.front())) || std::isalpha(static_cast<unsigned char>(piece.back())));
  };
  // Letter pieces written, runs of three letters and pieces written thrice, by penalty.
  std::map<float, int> letters, triples, repeats, word_repeats;
  for (uint64_t seed : {1u, 2u, 3u}) {
    auto model = make_model(c, 1);
    model->init(seed);
    float* bias = model->params() + model->find("decoder.layers.1.norm3.bias")->offset;
    const float* embed = model->params() + model->find("embed.weight")->offset;
    for (const auto& [t, weight] : lean)
      for (int32_t j = 0; j < c.d_model; ++j) bias[j] += weight * embed[t * c.d_model + j];
    Engine e(export_model(*model, DType::F32), {.max_batch = 4, .max_src_len = 16, .max_tgt_len = 24, .max_beam = 1});
    for (int32_t t = 0; t < static_cast<int32_t>(V); ++t) e.search.mark_piece_letters(t, text_of(t));
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::vector<std::vector<int32_t>> sources;
    for (size_t n : {4, 7, 2, 11}) {
      sources.push_back(random_ids(rng, n, c.vocab_size));
      sources.back().push_back(kEosId);
    }
    const std::vector<int32_t> max_len(sources.size(), 24);
    e.network.encode(spans(sources), false);
    for (const float penalty : {0.f, 0.2f, 1.5f, 100.f}) {
      std::vector<rt::Hypothesis> h(sources.size());
      e.search.greedy(sources.size(), max_len.data(), {.alpha = 0.6f, .letter_penalty = penalty}, {}, h.data());
      for (size_t i = 0; i < sources.size(); ++i) {
        CAPTURE(seed);
        CAPTURE(penalty);
        CAPTURE(i);
        const std::vector<int32_t> out(h[i].tokens, h[i].tokens + h[i].length);
        letters[penalty] += static_cast<int>(std::count_if(out.begin(), out.end(), is_letter));
        for (size_t t = 0; t < out.size(); ++t) {
          triples[penalty] += third(out, t, out[t]) ? 1 : 0;
          repeats[penalty] += thrice(out, t, out[t]) ? 1 : 0;
          word_repeats[penalty] += out[t] == 46 && thrice(out, t, out[t]) ? 1 : 0;
        }
        int32_t T = 0;
        const Pair pair{{sources[i].begin(), sources[i].end() - 1}, out};
        const std::vector<float> logits = trainer_logits(model.get(), {pair}, &T);
        double sum = 0;
        for (size_t t = 0; t < out.size() + (h[i].complete ? 1 : 0); ++t) {
          const float* row = logits.data() + t * V;
          auto penalized = [&](int32_t v) {
            if (penalty == 0.f) return log_prob(row, V, v);
            if (third(out, t, v) || thrice(out, t, v)) return double{-INFINITY};
            return log_prob(row, V, v) - (is_letter(v) ? penalty : 0.0);
          };
          double best = -INFINITY;
          for (int32_t v = 0; v < static_cast<int32_t>(V); ++v) best = std::max(best, penalized(v));
          const double taken = penalized(t < out.size() ? out[t] : kEosId);
          CHECK(taken >= best - 1e-3);
          sum += taken;
        }
        CHECK(h[i].log_prob == doctest::Approx(sum).epsilon(1e-3));
      }
    }
  }
  MESSAGE("letter pieces written at penalty 0 / 0.2 / 1.5 / 100: ", letters[0.f], " / ", letters[0.2f], " / ",
          letters[1.5f], " / ", letters[100.f], "; third letters in a row: ", triples[0.f], " / ", triples[0.2f],
          "; third pieces in a row: ", repeats[0.f], " / ", repeats[0.2f], " (whole words: ", word_repeats[0.f], ")");
  CHECK(letters[0.f] > letters[0.2f]);  // the lean makes letters common; the penalty makes them rarer
  CHECK(letters[0.2f] > letters[1.5f]);
  CHECK(letters[100.f] == 0);
  CHECK(triples[0.f] > 0);  // the lean makes runs and repeats; the rules remove them
  CHECK(repeats[0.f] > 0);
  CHECK(word_repeats[0.f] > 0);
  CHECK(letters[0.2f] > 0);
  CHECK(triples[0.2f] == 0);
  CHECK(repeats[0.2f] == 0);
  CHECK(repeats[1.5f] == 0);
}

}  // namespace
}  // namespace pmt::test
