// TextTranslator (paragraphs, layout, long sentences) against a reference built from the
// Translator's own sentence API: each sentence translated alone, joined with the text's
// whitespace. The tiny random model's output is gibberish, which is all these tests need.
#include <clocale>
#include <cstdlib>
#include <cstring>
#include <cwctype>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/pmt.h"
#include "pocketmt/sentence_splitter.h"
#include "pocketmt/text_translator.h"
#include "runtime/runtime_test_util.h"

namespace pmt::test {
namespace {

const ModelBytes& tiny_model() {
  static const ModelBytes bytes = [] {
    auto model = make_model(tiny_config(), 1);
    model->init(11);
    return export_model(*model, DType::F32);
  }();
  return bytes;
}

// The reference: sentences split by split_sentences, each translated alone by
// Translator::translate (batch of one, no sorting), joined with the original whitespace.
std::string reference(Translator& t, std::string_view text, const TranslateOptions& options) {
  std::vector<SentenceSpan> spans;
  split_sentences(text, "en", &spans);
  std::string out;
  size_t at = 0;
  for (const SentenceSpan& s : spans) {
    out.append(text.substr(at, s.begin - at));
    const std::string_view sentence = text.substr(s.begin, s.end - s.begin);
    REQUIRE(t.translate({&sentence, 1}, options).ok());
    REQUIRE(t.results()[0].status.ok());
    out.append(t.results()[0].text);
    at = s.end;
  }
  out.append(text.substr(at));
  return out;
}

const std::vector<std::string_view> kParagraphs = {
    "Ab cd ef. Gh ik lm no? Pr st!",
    "",
    "   ",
    "  Leading and trailing space. Kept.  ",
    "Mr. Ab cd ef gh. Ik lm.",
    "Line one. Still one\nLine two.\r\n\nLine four after a blank line.",
    "Ab... Cd\tef. «Gh ik.» (Lm no.) Pr.",
    "no sentence end at all",
    "1. Ab cd. 2. Ef gh.",
};

TEST_CASE("paragraphs equal their sentences translated one by one, batched or not") {
  for (int32_t batch : {1, 3, 8}) {
    for (int32_t beam : {1, 3}) {
      CAPTURE(batch);
      CAPTURE(beam);
      auto t = load(tiny_model(), {.max_batch = batch, .max_beam = 3});
      const TranslateOptions options{.beam = beam, .no_repeat_ngram = 3};
      TextTranslator text(*t);
      REQUIRE(text.translate(kParagraphs, {.search = options}).ok());
      const auto results = text.results();
      REQUIRE(results.size() == kParagraphs.size());
      for (size_t i = 0; i < kParagraphs.size(); ++i) {
        CAPTURE(kParagraphs[i]);
        CHECK(results[i].status.ok());
        CHECK(results[i].text == reference(*t, kParagraphs[i], options));
        CHECK(results[i].cut_sentences == 0);
      }
      CHECK(results[0].sentences == 3);
      CHECK(results[1].sentences == 0);
      CHECK(results[5].sentences == 4);
    }
  }
}

TEST_CASE("a text's log_prob is the sum of its sentences' log_probs") {
  auto t = load(tiny_model(), {.max_batch = 4});
  const std::string_view sentences[] = {"Ab cd ef.", "Gh ik lm no?", "Pr st!"};
  REQUIRE(t->translate(sentences).ok());
  float sum = 0.f;
  for (const Translation& r : t->results()) sum += r.log_prob;
  TextTranslator text(*t);
  const std::string_view in[] = {kParagraphs[0]};  // the three sentences as one paragraph
  REQUIRE(text.translate(in).ok());
  CHECK(text.results()[0].log_prob == doctest::Approx(sum).epsilon(1e-6));
  CHECK(sum < 0.f);
}

TEST_CASE("layout: whitespace, blank lines and line breaks are kept") {
  auto t = load(tiny_model(), {.max_batch = 4});
  TextTranslator text(*t);
  const std::vector<std::string_view> in = {"", "  ", "\t Ab cd. Ef.  ", "Ab.\n\n\nCd.\r\n"};
  REQUIRE(text.translate(in).ok());
  const auto r = text.results();
  CHECK(r[0].text.empty());
  CHECK(r[1].text == "  ");
  CHECK(r[2].text.starts_with("\t "));
  CHECK(r[2].text.ends_with("  "));
  CHECK(std::count(r[3].text.begin(), r[3].text.end(), '\n') == 4);
  CHECK(r[3].text.ends_with("\r\n"));
  CHECK(r[3].text.find("\n\n\n") != std::string::npos);
}

// Words of the tiny tokenizer's alphabet, `n` of them: "ab cd ef ...".
std::string words(size_t n, size_t seed) {
  static constexpr std::string_view kLetters = "abcdefghiklmnoprstu";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) s += ' ';
    s += kLetters[(seed + 3 * i) % kLetters.size()];
    s += kLetters[(seed + 7 * i + 1) % kLetters.size()];
  }
  return s;
}

size_t tokens(const Translator& t, std::string_view s) {
  std::vector<int32_t> ids;
  REQUIRE(t.encode(s, &ids).ok());
  return ids.size();
}

TEST_CASE("a sentence longer than max_src_len is cut at clauses, then by tokens, never rejected") {
  auto t = load(tiny_model(), {.max_batch = 4, .max_src_len = 16});
  const TranslateOptions options{.beam = 1};
  TextTranslator text(*t);
  // Two clauses that fit alone but not together: the translation is theirs, joined by a space.
  std::string a = words(5, 1), b = words(6, 4);
  REQUIRE(tokens(*t, a + ",") <= 15);
  REQUIRE(tokens(*t, b + ".") <= 15);
  REQUIRE(tokens(*t, a + ", " + b + ".") > 15);
  const std::string two = a + ",  " + b + ".";
  std::string_view in[] = {two};
  REQUIRE(text.translate(in, {.search = options}).ok());
  REQUIRE(text.results()[0].status.ok());
  CHECK(text.results()[0].cut_sentences == 1);
  CHECK(text.results()[0].sentences == 1);
  const std::string first = reference(*t, a + ",", options), second = reference(*t, b + ".", options);
  CHECK(text.results()[0].text == first + "  " + second);

  // No clause punctuation: cut by tokens into pieces that each fit.
  const std::string long_sentence = words(60, 2) + ".";
  REQUIRE(tokens(*t, long_sentence) > 45);
  in[0] = long_sentence;
  REQUIRE(text.translate(in, {.search = options}).ok());
  const TextResult& r = text.results()[0];
  CHECK(r.status.ok());
  CHECK(r.cut_sentences == 1);
  CHECK(r.source_tokens >= static_cast<int32_t>(tokens(*t, long_sentence)) + 4);  // 4+ pieces, each with EOS

  // Without splitting, the same text is rejected as it always was.
  REQUIRE(text.translate(in, {.search = options, .split = false}).ok());
  CHECK(text.results()[0].status.code() == ErrorCode::kLimitExceeded);
  CHECK(text.results()[0].text.empty());
}

TEST_CASE("rejected texts and bad options") {
  auto t = load(tiny_model(), {.max_batch = 2});
  TextTranslator text(*t);
  const std::vector<std::string_view> in = {"Ab cd.", "Bad \xC3( byte. Ef.", "Gh."};
  REQUIRE(text.translate(in).ok());
  CHECK(text.results()[0].status.ok());
  CHECK(text.results()[1].status.code() == ErrorCode::kInvalidUtf8);
  CHECK(text.results()[1].text.empty());
  CHECK(text.results()[2].text == reference(*t, "Gh.", {}));
  CHECK(text.translate(in, {.search = {.beam = 9}}).code() == ErrorCode::kInvalidArgument);
  CHECK(text.translate(in, {.search = {.max_len_ratio = -1.f}}).code() == ErrorCode::kInvalidArgument);
}

TEST_CASE("streaming gives the same text, sentence after sentence") {
  auto t = load(tiny_model(), {.max_batch = 4});
  TextTranslator text(*t);
  struct Sink {
    std::vector<std::string> texts = std::vector<std::string>(3);
    static void on(void* user, const TextEvent& e) { static_cast<Sink*>(user)->texts[e.index].append(e.text); }
  } sink;
  const std::vector<std::string_view> in = {"  Ab cd. Ef gh ik.  ", "", "Lm.\nNo pr."};
  REQUIRE(text.translate(in, {}, {&Sink::on, &sink}).ok());
  for (size_t i = 0; i < in.size(); ++i) CHECK(sink.texts[i] == text.results()[i].text);
}

// Capitals of a reference translation, through the C library (C.UTF-8), not the runtime's tables.
std::string upper_reference(std::string_view text) {
  REQUIRE(std::setlocale(LC_CTYPE, "C.UTF-8") != nullptr);
  std::wstring wide(text.size() + 1, L'\0');
  const size_t n = std::mbstowcs(wide.data(), std::string(text).c_str(), wide.size());
  REQUIRE(n != static_cast<size_t>(-1));
  wide.resize(n);
  for (wchar_t& c : wide)
    if (c != L'\u00DF' && c != L'\u00B5' && c != L'\u0131' && c != L'\u017F') c = static_cast<wchar_t>(std::towupper(c));
  std::string out(4 * wide.size() + 1, '\0');
  out.resize(std::wcstombs(out.data(), wide.c_str(), out.size()));
  std::setlocale(LC_CTYPE, "C");
  return out;
}

TEST_CASE("an ALL-CAPS sentence is translated in sentence case and comes back in capitals") {
  auto t = load(tiny_model(), {.max_batch = 4});
  const TranslateOptions options{.beam = 1};
  TextTranslator text(*t);
  const std::vector<std::string_view> in = {"SAVE YOUR WORK. Then close it.  I'M DONE!",
                                            "AB CD EF GH, IK LM NO PR, ST UV WX YZ, AB CD EF GH IK LM."};
  REQUIRE(text.translate(in, {.search = options}).ok());
  const std::string expected0 = upper_reference(reference(*t, "Save your work.", options)) + " " +
                                reference(*t, "Then close it.", options) + "  " +
                                upper_reference(reference(*t, "I'm done!", options));
  CHECK(text.results()[0].text == expected0);
  CHECK(text.results()[1].cut_sentences == 0);
  // Cut into pieces (max_src_len 12): every piece is folded, and the gaps come from the text.
  auto short_t = load(tiny_model(), {.max_batch = 4, .max_src_len = 12});
  TextTranslator short_text(*short_t);
  REQUIRE(short_text.translate({&in[1], 1}, {.search = options}).ok());
  const TextResult cut = short_text.results()[0];
  CHECK(cut.cut_sentences == 1);
  const std::string_view folded = "Ab cd ef gh, ik lm no pr, st uv wx yz, ab cd ef gh ik lm.";
  REQUIRE(short_text.translate({&folded, 1}, {.search = options}).ok());
  CHECK(short_text.results()[0].cut_sentences == 1);
  CHECK(cut.text == upper_reference(short_text.results()[0].text));

  // fold_caps off: the capitals go to the model as they are.
  REQUIRE(text.translate(in, {.search = options, .fold_caps = false}).ok());
  CHECK(text.results()[0].text == reference(*t, in[0], options));

  // Streaming folds the same way: capitals of the folded sentence's stream (a stream may differ
  // from TextResult::text in spaces, see TextEvent).
  struct Sink {
    std::string text;
    static void on(void* user, const TextEvent& e) { static_cast<Sink*>(user)->text.append(e.text); }
  } caps_stream, folded_stream;
  const std::string_view caps = "I'M DONE!", lower = "I'm done!";
  REQUIRE(text.translate({&caps, 1}, {.search = options}, {&Sink::on, &caps_stream}).ok());
  REQUIRE(text.translate({&lower, 1}, {.search = options}, {&Sink::on, &folded_stream}).ok());
  CHECK(caps_stream.text == upper_reference(folded_stream.text));
}

TEST_CASE("the output length bound follows the source length") {
  auto t = load(tiny_model(), {.max_batch = 1, .max_tgt_len = 60});
  std::vector<int32_t> src(4, 10);
  const std::span<const int32_t> one[] = {src};
  // A random model rarely ends early: with ratio 0 + extra 3 it stops at 3 tokens with EOS.
  REQUIRE(t->translate_ids(one, {.beam = 1, .max_len_ratio = 0.f, .max_len_extra = 3}).ok());
  CHECK(t->results()[0].tokens.size() <= 3);
  REQUIRE(t->translate_ids(one, {.beam = 1, .max_len_ratio = 2.f, .max_len_extra = 0}).ok());
  CHECK(t->results()[0].tokens.size() <= 10);  // 2 x (4 + EOS)
}

TEST_CASE("the C API translates text like the C++ one") {
  const ModelBytes& model = tiny_model();
  pmt_load_options lo;
  pmt_load_options_init(&lo);
  lo.max_batch = 3;
  pmt_translator* h = nullptr;
  REQUIRE(pmt_load_buffer(model.data(), model.size(), &lo, &h) == PMT_OK);
  auto t = load(model, {.max_batch = 3});
  TextTranslator text(*t);
  REQUIRE(text.translate(kParagraphs).ok());
  std::vector<const char*> texts;
  std::vector<size_t> lengths;
  for (std::string_view p : kParagraphs) {
    texts.push_back(p.data());
    lengths.push_back(p.size());
  }
  pmt_text_options options;
  pmt_text_options_init(&options);
  REQUIRE(pmt_translate_text(h, texts.data(), lengths.data(), texts.size(), &options, nullptr, nullptr) == PMT_OK);
  REQUIRE(pmt_text_result_count(h) == kParagraphs.size());
  for (size_t i = 0; i < kParagraphs.size(); ++i) {
    pmt_text_result r;
    REQUIRE(pmt_get_text_result(h, i, &r) == PMT_OK);
    CHECK(r.status == PMT_OK);
    CHECK(std::string_view(r.text, r.text_length) == text.results()[i].text);
    CHECK(r.sentences == text.results()[i].sentences);
  }
  pmt_text_result r;
  CHECK(pmt_get_text_result(h, kParagraphs.size(), &r) == PMT_INVALID_ARGUMENT);

  const char* caps = "AB CD EF GH.";
  const size_t caps_length = std::strlen(caps);
  for (const int32_t fold : {1, 0}) {
    options.fold_caps = fold;
    REQUIRE(pmt_translate_text(h, &caps, &caps_length, 1, &options, nullptr, nullptr) == PMT_OK);
    REQUIRE(pmt_get_text_result(h, 0, &r) == PMT_OK);
    const std::string_view in = fold ? "Ab cd ef gh." : caps;
    REQUIRE(text.translate({&in, 1}, {.fold_caps = false}).ok());
    const std::string expected = fold ? upper_reference(text.results()[0].text) : text.results()[0].text;
    CHECK(std::string_view(r.text, r.text_length) == expected);
  }
  pmt_free(h);
}

}  // namespace
}  // namespace pmt::test
