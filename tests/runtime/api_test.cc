// The public APIs (translator.h, pmt.h) on bad input and on their documented behaviour: load
// errors, limits, per-sentence errors, the string path, streaming, threads, the C API.
#include <sched.h>
#include <sys/stat.h>

#include <cmath>
#include <climits>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../formats/temp_dir.h"
#include "pocketmt/pmt.h"
#include "runtime_test_util.h"

namespace pmt::test {
namespace {

// One exported tiny model shared by the tests of this file.
const ModelBytes& tiny_model() {
  static const ModelBytes bytes = [] {
    auto model = make_model(tiny_config(), 1);
    model->init(5);
    return export_model(*model, DType::F32);
  }();
  return bytes;
}

void write(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

std::vector<int32_t> tokens_of(const Translation& r) { return {r.tokens.begin(), r.tokens.end()}; }

TEST_CASE("load reports a missing file, a corrupt file and bad options") {
  TempDir dir;
  std::unique_ptr<Translator> t;
  Status s = Translator::load(dir.file("missing.pmt"), {}, &t);
  CHECK(s.code() == ErrorCode::kNotFound);
  CHECK(std::string(s.message()).find("missing.pmt") != std::string::npos);
  CHECK(t == nullptr);

  const ModelBytes& good = tiny_model();
  write(dir.file("good.pmt"), good.data(), good.size());
  s = Translator::load(dir.file("good.pmt"), {}, &t);
  REQUIRE_MESSAGE(s.ok(), s.message());
  CHECK(t->limits().max_src_len == 64);  // the default 128 capped at the tiny model's max_len
  CHECK(t->limits().max_tgt_len == 64);

  // The stages are parts of the load: the sequential ones fit in its total; the tokenizer may
  // overlap the operators (helper thread) but is part of the load too.
  for (const LoadTimes& lt : {t->load_times(), [&] {
         std::unique_ptr<Translator> from_memory;
         REQUIRE(Translator::load(good.data(), good.size(), {}, &from_memory).ok());
         return from_memory->load_times();
       }()}) {
    CHECK(lt.file_ms > 0);
    CHECK(lt.tokenizer_ms > 0);
    CHECK(lt.operators_ms > 0);
    CHECK(lt.arena_ms > 0);
    CHECK(lt.file_ms + lt.operators_ms + lt.arena_ms <= lt.total_ms);
    CHECK(lt.tokenizer_ms <= lt.total_ms);
  }

  std::vector<uint8_t> bytes(good.data(), good.data() + good.size());
  bytes[bytes.size() / 2] ^= 0x40;
  write(dir.file("flipped.pmt"), bytes.data(), bytes.size());
  write(dir.file("truncated.pmt"), good.data(), good.size() / 3);
  write(dir.file("empty.pmt"), "", 0);
  write(dir.file("text.pmt"), "not a model\n", 12);
  for (const char* name : {"flipped.pmt", "truncated.pmt", "empty.pmt", "text.pmt"}) {
    CAPTURE(name);
    std::unique_ptr<Translator> bad;
    s = Translator::load(dir.file(name), {}, &bad);
    CHECK(s.code() == ErrorCode::kBadModel);
    CHECK(std::string(s.message()).size() > 0);
    CHECK(bad == nullptr);
  }

  for (const LoadOptions& o : {LoadOptions{.max_batch = 0}, LoadOptions{.max_src_len = 65},
                               LoadOptions{.max_tgt_len = 65}, LoadOptions{.max_beam = 0}, LoadOptions{.threads = 0}}) {
    std::unique_ptr<Translator> bad;
    s = Translator::load(good.data(), good.size(), o, &bad);
    CHECK(s.code() == ErrorCode::kInvalidArgument);
    CHECK(bad == nullptr);
  }
}

TEST_CASE("a sentence beyond the limits is rejected alone; the others are translated") {
  auto t = load(tiny_model(), {.max_batch = 5, .max_src_len = 8});
  const std::vector<std::vector<int32_t>> sources = {
      {10, 11, 12, 13, 14, 15, 16},      // 7 tokens + EOS = 8: fits
      {10, 11, 12, 13, 14, 15, 16, 17},  // 8 + EOS = 9: too long
      {},                                // empty: empty translation
      {10, 64, 12},                      // id outside the vocabulary
      {20, 21}};
  REQUIRE(t->translate_ids(spans(sources)).ok());
  const auto r = t->results();
  REQUIRE(r.size() == 5);
  CHECK(r[0].status.ok());
  CHECK(r[0].source_tokens == 8);
  CHECK(r[1].status.code() == ErrorCode::kLimitExceeded);
  CHECK(std::string(r[1].status.message()).find("max_src_len") != std::string::npos);
  CHECK(r[1].tokens.empty());
  CHECK(r[2].status.ok());
  CHECK(r[2].tokens.empty());
  CHECK(r[2].complete);
  CHECK(r[3].status.code() == ErrorCode::kInvalidArgument);
  CHECK(r[4].status.ok());

  // The accepted sentences come out as when translated on their own.
  const std::vector<int32_t> first = tokens_of(r[0]), last = tokens_of(r[4]);
  REQUIRE(t->translate_ids(spans({sources[4]})).ok());
  CHECK(tokens_of(t->results()[0]) == last);
  REQUIRE(t->translate_ids(spans({sources[0]})).ok());
  CHECK(tokens_of(t->results()[0]) == first);
}

TEST_CASE("call options outside the load limits are refused") {
  auto t = load(tiny_model(), {.max_batch = 2, .max_src_len = 16, .max_tgt_len = 20, .max_beam = 3});
  const std::vector<std::vector<int32_t>> one = {{5, 6}}, three = {{5}, {6}, {7}};
  CHECK(t->translate_ids(spans(three)).code() == ErrorCode::kLimitExceeded);
  CHECK(t->translate_ids(spans(one), {.beam = 0}).code() == ErrorCode::kInvalidArgument);
  CHECK(t->translate_ids(spans(one), {.beam = 4}).code() == ErrorCode::kInvalidArgument);
  CHECK(t->translate_ids(spans(one), {.beam = 2, .alpha = INFINITY}).code() == ErrorCode::kInvalidArgument);
  CHECK(t->translate_ids(spans(one), {.beam = 2, .alpha = NAN}).code() == ErrorCode::kInvalidArgument);
  CHECK(t->translate_ids(spans(one), {.beam = 2, .max_len = 21}).code() == ErrorCode::kInvalidArgument);
  REQUIRE(t->translate_ids(spans(one), {.beam = 3, .max_len = 20}).ok());
  CHECK(t->results()[0].tokens.size() <= 20);
  // The default length limit: source tokens with EOS + 50, here capped at max_tgt_len = 20.
  REQUIRE(t->translate_ids(spans(one), {.beam = 1}).ok());
  CHECK(t->results()[0].tokens.size() + (t->results()[0].complete ? 1 : 0) <= 20);
}

// The decode settings a model file may store (decode.alpha, decode.letter_penalty): each is
// the default of a call that leaves its option negative, the fallback without one.
TEST_CASE("decode settings: the file's decode.alpha and decode.letter_penalty are the defaults, bad values refused") {
  const std::vector<std::vector<int32_t>> sources = {{5, 6, 7}, {9, 4}, {12}};
  auto model = make_model(tiny_config(), 1);
  model->init(5);
  struct Setting {
    const char* key;
    float fallback;
    float (Translator::*stored)() const;
    float TranslateOptions::*option;
  };
  for (const Setting& setting : {Setting{"decode.alpha", kFallbackAlpha, &Translator::default_alpha, &TranslateOptions::alpha},
                                 {"decode.letter_penalty", 0.f, &Translator::default_letter_penalty,
                                  &TranslateOptions::letter_penalty}}) {
    CAPTURE(setting.key);
    // Each call's results, as (tokens, log_prob, score) per sentence.
    auto run = [&](Translator& t, float value) {
      TranslateOptions o{.beam = 3};
      o.*setting.option = value;
      REQUIRE(t.translate_ids(spans(sources), o).ok());
      std::vector<std::tuple<std::vector<int32_t>, float, float>> out;
      for (const Translation& r : t.results()) out.emplace_back(tokens_of(r), r.log_prob, r.score);
      return out;
    };
    auto plain = load(tiny_model(), {.max_batch = 3, .max_beam = 3});
    CHECK(((*plain).*setting.stored)() == setting.fallback);
    CHECK(run(*plain, -1.f) == run(*plain, setting.fallback));

    const ModelBytes tuned = export_model(*model, DType::F32, 1.1, {{setting.key, "2.5"}});
    auto t = load(tuned, {.max_batch = 3, .max_beam = 3});
    CHECK(((*t).*setting.stored)() == 2.5f);
    const auto by_default = run(*t, -1.f);
    CHECK(by_default == run(*t, 2.5f));
    CHECK(by_default != run(*t, setting.fallback));  // the stored value is the one used
    CHECK(run(*t, -7.f) == by_default);              // any negative value asks for the model's

    for (const char* bad : {"abc", "-1", "1e3", "100.5", "1.2.3", ".", "0x10", " 1"}) {
      CAPTURE(bad);
      const ModelBytes file = export_model(*model, DType::F32, 1.1, {{setting.key, bad}});
      std::unique_ptr<Translator> out;
      const Status s = Translator::load(file.data(), file.size(), {}, &out);
      CHECK(s.code() == ErrorCode::kBadModel);
      CHECK(std::string(s.message()).find(setting.key) != std::string::npos);
    }
  }
  auto t = load(tiny_model(), {.max_batch = 3, .max_beam = 3});
  for (const float bad : {100.5f, NAN, INFINITY}) {
    CAPTURE(bad);
    const Status s = t->translate_ids(spans(sources), {.beam = 1, .letter_penalty = bad});
    CHECK(s.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(s.message()).find("letter_penalty") != std::string::npos);
  }
}

TEST_CASE("the string path: invalid UTF-8 and empty lines, text = decoded tokens") {
  auto t = load(tiny_model(), {.max_batch = 4});
  const std::vector<std::string_view> lines = {"abc de", "bad \xC3( byte", "", "ku lmn o"};
  REQUIRE(t->translate(lines, {.beam = 2}).ok());
  const auto r = t->results();
  REQUIRE(r.size() == 4);
  CHECK(r[0].status.ok());
  CHECK(r[1].status.code() == ErrorCode::kInvalidUtf8);
  CHECK(std::string(r[1].status.message()).find("byte 4") != std::string::npos);
  CHECK(r[2].status.ok());
  CHECK(r[2].text.empty());
  CHECK(r[3].status.ok());
  for (size_t i : {0u, 3u}) {
    std::string decoded;
    REQUIRE(t->decode(r[i].tokens, &decoded).ok());
    CHECK(r[i].text == decoded);
  }
  // Strings and their token ids translate alike.
  const std::vector<int32_t> text0 = tokens_of(r[0]);
  std::vector<int32_t> ids;
  REQUIRE(t->encode(lines[0], &ids).ok());
  CHECK(!ids.empty());
  REQUIRE(t->translate_ids(spans({ids}), {.beam = 2}).ok());
  CHECK(tokens_of(t->results()[0]) == text0);
  CHECK(t->encode("\xFF", &ids).code() == ErrorCode::kInvalidUtf8);
}

// Records the streamed events per sentence.
struct Stream {
  std::vector<std::vector<int32_t>> tokens;
  std::vector<std::string> text;
  static void on_token(void* user, const TokenEvent& e) {
    auto* s = static_cast<Stream*>(user);
    CHECK(e.position == static_cast<int32_t>(s->tokens[e.sentence].size()));
    s->tokens[e.sentence].push_back(e.token);
    s->text[e.sentence] += e.text;
  }
};

TEST_CASE("streamed tokens are the final tokens, in order, for greedy and beam search") {
  auto t = load(tiny_model(), {.max_batch = 3, .max_beam = 4});
  const std::vector<std::string_view> lines = {"abc de fg", "hi", "kl mno prs tu"};
  for (int32_t beam : {1, 4}) {
    CAPTURE(beam);
    Stream stream{std::vector<std::vector<int32_t>>(3), std::vector<std::string>(3)};
    REQUIRE(t->translate(lines, {.beam = beam}, {Stream::on_token, &stream}).ok());
    for (size_t i = 0; i < lines.size(); ++i) {
      CHECK(stream.tokens[i] == tokens_of(t->results()[i]));
      CHECK(stream.text[i] == t->results()[i].text);
    }
  }
}

TEST_CASE("two threads translate exactly as one") {
  std::mt19937 rng(1);
  std::vector<std::vector<int32_t>> sources;
  for (size_t n : {3, 17, 8, 30}) sources.push_back(random_ids(rng, n, 64));
  std::vector<std::vector<int32_t>> out[2];
  for (int32_t threads : {1, 2}) {
    auto t = load(tiny_model(), {.max_batch = 4, .threads = threads});
    REQUIRE(t->translate_ids(spans(sources), {.beam = 3}).ok());
    for (const Translation& r : t->results()) out[threads - 1].push_back(tokens_of(r));
  }
  CHECK(out[0] == out[1]);
}

TEST_CASE("the C API: load, translate strings and ids, results, errors") {
  const ModelBytes& model = tiny_model();
  pmt_translator* t = nullptr;
  CHECK(pmt_load("/nonexistent/dir/model.pmt", nullptr, &t) == PMT_NOT_FOUND);
  CHECK(std::string(pmt_last_error()).find("model.pmt") != std::string::npos);
  CHECK(pmt_load_buffer(model.data(), 100, nullptr, &t) == PMT_BAD_MODEL);
  CHECK(t == nullptr);

  pmt_load_options options;
  pmt_load_options_init(&options);
  options.max_batch = 2;
  REQUIRE(pmt_load_buffer(model.data(), model.size(), &options, &t) == PMT_OK);
  CHECK(pmt_vocab_size(t) == 64);
  CHECK(pmt_arena_bytes(t) > 0);

  const char* sentences[] = {"abc de", "bad \xFF"};
  pmt_translate_options topt;
  pmt_translate_options_init(&topt);
  CHECK(topt.shortlist == 1);
  CHECK(topt.copy_numbers == 1);
  CHECK(topt.letter_penalty < 0.f);  // the model's own
  topt.beam = 2;
  struct Count {
    int events = 0;
  } count;
  pmt_token_fn on_token = [](void* user, int32_t, int32_t, int32_t, const char*, size_t) {
    ++static_cast<Count*>(user)->events;
  };
  REQUIRE(pmt_translate(t, sentences, nullptr, 2, &topt, on_token, &count) == PMT_OK);
  REQUIRE(pmt_result_count(t) == 2);
  pmt_result r0, r1;
  REQUIRE(pmt_get_result(t, 0, &r0) == PMT_OK);
  REQUIRE(pmt_get_result(t, 1, &r1) == PMT_OK);
  CHECK(r0.status == PMT_OK);
  CHECK(std::string(r0.text) == std::string(r0.text, r0.text_length));
  CHECK(count.events == static_cast<int>(r0.token_count));
  CHECK(r1.status == PMT_INVALID_UTF8);
  CHECK(std::string(r1.error).size() > 0);
  CHECK(pmt_get_result(t, 2, &r0) == PMT_INVALID_ARGUMENT);

  const int32_t ids[] = {10, 11, 12};
  const int32_t* sources[] = {ids};
  const size_t lengths[] = {3};
  REQUIRE(pmt_translate_ids(t, sources, lengths, 1, nullptr, nullptr, nullptr) == PMT_OK);
  REQUIRE(pmt_get_result(t, 0, &r0) == PMT_OK);
  CHECK(r0.status == PMT_OK);
  CHECK(std::string(r0.text).empty());
  CHECK(std::isfinite(r0.score));

  const char* three[] = {"a", "b", "c"};
  CHECK(pmt_translate(t, three, nullptr, 3, nullptr, nullptr, nullptr) == PMT_LIMIT_EXCEEDED);
  CHECK(pmt_translate(nullptr, three, nullptr, 1, nullptr, nullptr, nullptr) == PMT_INVALID_ARGUMENT);
  topt.beam = 9;
  CHECK(pmt_translate(t, three, nullptr, 1, &topt, nullptr, nullptr) == PMT_INVALID_ARGUMENT);
  CHECK(std::string(pmt_last_error()).find("beam") != std::string::npos);
  CHECK(std::string(pmt_status_name(PMT_INVALID_UTF8)) == "invalid UTF-8");
  CHECK(std::string(pmt_version()).size() > 0);
  pmt_free(t);
  pmt_free(nullptr);
}

// Issue 14, finding 1: a named pipe as the model path used to block load for ever.
TEST_CASE("load refuses a FIFO as the model path without waiting for a writer") {
  TempDir dir;
  const std::string path = dir.file("model.pmt");
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  std::unique_ptr<Translator> t;
  const Status s = Translator::load(path, {}, &t);
  CHECK(s.code() == ErrorCode::kBadModel);
  CHECK(std::string(s.message()) == path + ": not a regular file");
}

// Issue 14, finding 2: the default max_tgt_len was max_src_len + 50 in int32, before
// max_src_len was checked (UBSan: signed overflow with 2147483647).
TEST_CASE("the largest max_src_len is refused, not overflowed") {
  const ModelBytes& model = tiny_model();
  std::unique_ptr<Translator> t;
  const Status s = Translator::load(model.data(), model.size(), {.max_src_len = INT32_MAX}, &t);
  CHECK(s.code() == ErrorCode::kInvalidArgument);
  CHECK(std::string(s.message()) == "max_src_len = 2147483647 is outside [2, 64]");
}

// Issue 14, finding 6: 64 threads on 2 cores took 111 s for three words.
TEST_CASE("threads beyond the available CPUs are capped; beyond 256 refused") {
  cpu_set_t set;
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  const int32_t cpus = CPU_COUNT(&set);
  auto t = load(tiny_model(), {.threads = 256});
  CHECK(t->limits().threads == cpus);
  t = load(tiny_model(), {.threads = 1});
  CHECK(t->limits().threads == 1);
  std::unique_ptr<Translator> bad;
  CHECK(Translator::load(tiny_model().data(), tiny_model().size(), {.threads = 257}, &bad).code() ==
        ErrorCode::kInvalidArgument);
}

// Issue 14, finding 4: a callback that translated again silently replaced the outer results.
TEST_CASE("a call from inside a token callback fails and leaves the outer call intact") {
  auto t = load(tiny_model(), {.max_batch = 1});
  const std::vector<std::string_view> line = {"abc de fg"};
  REQUIRE(t->translate(line, {.beam = 1}).ok());
  const std::vector<int32_t> expected = tokens_of(t->results()[0]);
  REQUIRE_FALSE(expected.empty());

  struct Inner {
    Translator* t;
    std::vector<Status> statuses;
  } inner{t.get(), {}};
  const TokenCallback reenter{[](void* user, const TokenEvent&) {
                                auto* in = static_cast<Inner*>(user);
                                const std::string_view other[] = {"xyz"};
                                const std::vector<int32_t> ids = {5, 6};
                                const std::span<const int32_t> id_spans[] = {ids};
                                float log_prob = 0;
                                in->statuses.push_back(in->t->translate(other, {.beam = 1}));
                                in->statuses.push_back(in->t->translate_ids(id_spans, {.beam = 1}));
                                in->statuses.push_back(in->t->score_ids(id_spans, id_spans, {&log_prob, 1}));
                              },
                              &inner};
  REQUIRE(t->translate(line, {.beam = 1}, reenter).ok());
  CHECK(inner.statuses.size() == 3 * expected.size());
  for (const Status& s : inner.statuses) {
    CHECK(s.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(s.message()) == "called from inside a callback of a call on the same Translator");
  }
  CHECK(tokens_of(t->results()[0]) == expected);
  REQUIRE(t->translate(line, {.beam = 1}).ok());  // usable again afterwards
  CHECK(tokens_of(t->results()[0]) == expected);
}

TEST_CASE("the C API: pmt_translate from its own callback gets PMT_INVALID_ARGUMENT") {
  pmt_translator* t = nullptr;
  REQUIRE(pmt_load_buffer(tiny_model().data(), tiny_model().size(), nullptr, &t) == PMT_OK);
  const char* outer[] = {"abc de fg"};
  struct Inner {
    pmt_translator* t;
    int calls = 0, refused = 0;
  } inner{t};
  pmt_token_fn reenter = [](void* user, int32_t, int32_t, int32_t, const char*, size_t) {
    auto* in = static_cast<Inner*>(user);
    const char* other[] = {"xyz"};
    ++in->calls;
    if (pmt_translate(in->t, other, nullptr, 1, nullptr, nullptr, nullptr) == PMT_INVALID_ARGUMENT) ++in->refused;
  };
  REQUIRE(pmt_translate(t, outer, nullptr, 1, nullptr, reenter, &inner) == PMT_OK);
  pmt_result r;
  REQUIRE(pmt_get_result(t, 0, &r) == PMT_OK);
  CHECK(inner.calls == static_cast<int>(r.token_count));
  CHECK(inner.refused == inner.calls);
  REQUIRE(pmt_translate(t, outer, nullptr, 1, nullptr, nullptr, nullptr) == PMT_OK);
  pmt_result again;
  REQUIRE(pmt_get_result(t, 0, &again) == PMT_OK);
  CHECK(std::string(again.text) == std::string(r.text, r.text_length));
  pmt_free(t);
}

// Issue 14, finding 5: pmt_load_options_init(NULL) dereferenced it.
TEST_CASE("the C API: the options initializers accept NULL") {
  pmt_load_options_init(nullptr);
  pmt_translate_options_init(nullptr);
  pmt_load_options o;
  pmt_load_options_init(&o);
  CHECK(o.max_beam == LoadOptions{}.max_beam);
  CHECK(o.reserved == 0);
}

// Two-pass int8 (int8_passes = 2) was removed in 0.2.0; its slot in pmt_load_options stayed as
// `reserved`. A caller built against 0.1.x that still asks for two passes must be told, not
// given one pass silently; its one-pass value 1 asks for what runs and is accepted.
TEST_CASE("the C API: the old int8_passes slot accepts 0 and 1 and refuses two passes") {
  const ModelBytes& model = tiny_model();
  pmt_load_options o;
  pmt_load_options_init(&o);
  for (int32_t value : {0, 1}) {
    CAPTURE(value);
    o.reserved = value;
    pmt_translator* t = nullptr;
    CHECK(pmt_load_buffer(model.data(), model.size(), &o, &t) == PMT_OK);
    pmt_free(t);
  }
  for (int32_t value : {2, -1}) {
    CAPTURE(value);
    o.reserved = value;
    pmt_translator* t = nullptr;
    CHECK(pmt_load_buffer(model.data(), model.size(), &o, &t) == PMT_INVALID_ARGUMENT);
    CHECK(t == nullptr);
    CHECK(std::string(pmt_last_error()).find("int8_passes") != std::string::npos);
    CHECK(pmt_load("/nonexistent/model.pmt", &o, &t) == PMT_INVALID_ARGUMENT);
  }
}

}  // namespace
}  // namespace pmt::test
