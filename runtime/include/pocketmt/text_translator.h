// Translating text as people have it: paragraphs, lines of a file, pasted documents.
//
//   pmt::TextTranslator text(*translator);           // a loaded pmt::Translator, not owned
//   std::string_view in[] = {"Save your work. Then close the program.", "", "  Hello!  "};
//   if (text.translate(in).ok())
//     for (const pmt::TextResult& r : text.results()) std::cout << r.text << "\n";
//
// Each text is split into sentences (sentence_splitter.h); the sentences of every text of the
// call are sorted by length and translated in batches of the Translator's max_batch, then each
// text is rebuilt from its translated sentences and its own whitespace: leading and trailing
// whitespace, the whitespace between sentences and every line break are kept as they were.
// A sentence longer than the Translator's max_src_len is cut at clause punctuation (, ; : ) and
// dashes), then, for a clause still too long, every max_src_len - 1 tokens; its pieces are
// translated one by one and joined with a space, and the result counts it in cut_sentences.
// An ALL-CAPS sentence is translated in sentence case and comes back in capitals (fold_caps).
//
// Memory: unlike Translator::translate_ids, this layer allocates (the sentences of the call and
// their translations); it keeps its buffers between calls. Threads: as the Translator it uses.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/sentence_splitter.h"
#include "pocketmt/translator.h"

namespace pmt {

struct TextOptions {
  TranslateOptions search;  // beam, length penalty, output length bounds, repetition block
  // false: every text is one sentence, never cut: a text longer than max_src_len is rejected
  // (its result has kLimitExceeded), as Translator::translate does.
  bool split = true;
  // ISO 639-1 code of the source language, for the splitter's abbreviations ("en", "es").
  std::string_view language = "en";
  // true: a sentence written in capitals (at least 4, at most one small letter per 10) is
  // translated in sentence case and its translation given back in capitals, since models
  // translate capitals-only text far worse than the same words in normal case.
  bool fold_caps = true;
};

// One translated text. `text` is empty when `status` is not ok.
struct TextResult {
  Status status;
  std::string text;
  int32_t sentences = 0;             // sentences translated (a cut sentence counts once)
  int32_t cut_sentences = 0;         // sentences longer than max_src_len, translated in pieces
  int32_t incomplete_sentences = 0;  // sentences (or pieces) stopped by the output length bound
  int32_t source_tokens = 0;         // tokens of every piece, EOS included
  int32_t target_tokens = 0;         // output tokens of every piece, EOS excluded
  float log_prob = 0.f;              // sum of every piece's Translation::log_prob
};

// Streaming: `text` is the next part of the translation of text `index` (a sentence's token, or
// the whitespace around sentences); concatenated in call order they give the text's
// translation except for normalization details that only TextResult::text has right.
struct TextEvent {
  int32_t index;
  std::string_view text;
};
struct TextCallback {
  void (*fn)(void* user, const TextEvent& event) = nullptr;
  void* user = nullptr;
};

class TextTranslator {
 public:
  // `translator` must outlive this object; one call at a time for both.
  explicit TextTranslator(Translator& translator) : translator_(translator) {}

  // Translates UTF-8 texts. Errors of the call as a whole (options out of range) are returned;
  // a text that is not valid UTF-8, or (without split) too long, gets its error in its result.
  // With a callback, sentences are translated in input order one at a time (for a reader who
  // watches the output appear); without one, in length-sorted batches (for throughput).
  Status translate(std::span<const std::string_view> texts, const TextOptions& options = {},
                   TextCallback on_text = {});
  // Results of the last call, one per text, in input order; valid until the next call.
  std::span<const TextResult> results() const { return results_; }

 private:
  // A sentence, or a piece of a cut one, to translate. Its tokens live in the pools below, so
  // a unit is small and a call's sentences take two growing arrays, not two vectors each.
  struct Unit {
    int32_t text;          // index of its text
    std::string_view gap;  // what precedes its translation in the output
    uint32_t source_begin, source_end;  // source tokens in source_ids_, without EOS
    uint32_t target_begin = 0, target_end = 0;  // output tokens in target_ids_, without EOS
    float log_prob = 0.f;
    bool caps = false;      // the sentence was ALL-CAPS: its translation goes back to capitals
    bool complete = false;
  };
  std::span<const int32_t> source_of(const Unit& u) const {
    return {source_ids_.data() + u.source_begin, u.source_end - u.source_begin};
  }
  std::span<const int32_t> target_of(const Unit& u) const {
    return {target_ids_.data() + u.target_begin, u.target_end - u.target_begin};
  }
  void add_unit(int32_t index, std::string_view gap, std::span<const int32_t> ids, bool caps);
  void add_text(int32_t index, std::string_view text, const TextOptions& options);
  // `sentence` as in the text (the gaps point into it) and as encoded (in sentence case when
  // `caps`), which have the same byte offsets.
  Status add_cut_sentence(int32_t index, std::string_view gap, std::string_view sentence,
                          std::string_view encoded, const std::vector<int32_t>& ids, bool caps);
  void add_cut_tokens(int32_t index, std::string_view gap, std::span<const int32_t> ids, bool caps);
  Status run_batches(const TextOptions& options);
  Status run_in_order(const TextOptions& options, TextCallback on_text);
  // Keeps a unit's output; a failed sentence fails its text (the first failure's message).
  void store(Unit& unit, const Translation& r);
  void assemble();

  Translator& translator_;
  std::vector<TextResult> results_;
  std::vector<Unit> units_;
  std::vector<int32_t> source_ids_, target_ids_;  // every unit's tokens, back to back
  std::vector<int32_t> ids_;  // tokens of the sentence being added
  std::vector<std::string_view> trailing_;  // per text: whitespace after its last sentence
  std::vector<SentenceSpan> spans_;
  std::string folded_;  // the sentence being added, in sentence case
};

}  // namespace pmt
