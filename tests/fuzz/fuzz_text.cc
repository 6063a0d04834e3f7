// Text translation on arbitrary bytes: the sentence splitter and TextTranslator (paragraphs,
// line breaks, sentences cut to the source limit), with the options taken from the first byte.
// Invariants: the splitter's spans are in order, non-empty and inside the text; the call
// succeeds with one result per text; a rejected text has no translation; with splitting, an
// accepted text keeps every line break of its input (without, a text is one sentence).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "micro_model.h"
#include "pocketmt/sentence_splitter.h"
#include "pocketmt/text_translator.h"
#include "pocketmt/translator.h"

namespace {

pmt::Translator& translator() {
  static std::unique_ptr<pmt::Translator> t;
  static std::unique_ptr<pmt::fuzz::AlignedBuffer> bytes;
  if (!t) {
    const auto model = pmt::fuzz::micro_model(pmt::DType::I8);
    bytes = std::make_unique<pmt::fuzz::AlignedBuffer>(model.data(), model.size());
    // A short source limit, so that long sentences are cut into pieces.
    const pmt::LoadOptions limits{.max_batch = 2, .max_src_len = 8, .max_tgt_len = 12, .max_beam = 2};
    if (!pmt::Translator::load(bytes->bytes.get(), bytes->size, limits, &t).ok()) std::abort();
  }
  return *t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string_view language = data[0] & 1 ? "es" : "en";
  std::vector<pmt::SentenceSpan> spans;
  pmt::split_sentences(text, language, &spans);
  size_t at = 0;
  for (const pmt::SentenceSpan& s : spans) {
    if (s.begin < at || s.end <= s.begin || s.end > text.size()) std::abort();
    at = s.end;
  }

  // Texts separated by 0x1E (record separator); each may hold line breaks.
  std::vector<std::string_view> texts;
  for (std::string_view rest = text;;) {
    const size_t end = rest.find('\x1e');
    texts.push_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  pmt::TextTranslator t(translator());
  const pmt::TextOptions options{.search = {.beam = 1 + (data[0] >> 1) % 2, .no_repeat_ngram = (data[0] >> 2) % 3},
                                 .split = (data[0] & 8) == 0,
                                 .language = language};
  if (!t.translate(texts, options).ok()) std::abort();
  if (t.results().size() != texts.size()) std::abort();
  for (size_t i = 0; i < texts.size(); ++i) {
    const pmt::TextResult& r = t.results()[i];
    if (!r.status.ok()) {
      if (!r.text.empty()) std::abort();
      continue;
    }
    if (options.split &&
        std::count(r.text.begin(), r.text.end(), '\n') != std::count(texts[i].begin(), texts[i].end(), '\n'))
      std::abort();
  }
  return 0;
}
