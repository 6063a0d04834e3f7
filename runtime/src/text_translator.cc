#include "pocketmt/text_translator.h"

#include <algorithm>
#include <numeric>

#include "letter_case.h"
#include "utf8.h"

namespace pmt {
namespace {

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// The text without the whitespace around it, as a span of it (for TextOptions::split = false).
SentenceSpan trimmed(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && is_ascii_space(text[begin])) ++begin;
  while (end > begin && is_ascii_space(text[end - 1])) --end;
  return {begin, end};
}

// Clauses of a sentence: cut after , ; : ) and after a dash that follows a space, where
// whitespace comes next. Spans of `sentence`, whitespace between them excluded.
std::vector<SentenceSpan> clauses_of(std::string_view sentence) {
  std::vector<SentenceSpan> clauses;
  size_t start = 0;
  for (size_t j = 0; j < sentence.size(); ++j) {
    size_t end = 0;
    const char c = sentence[j];
    if (c == ',' || c == ';' || c == ':' || c == ')') {
      end = j + 1;
    } else if ((sentence.substr(j, 3) == "\u2014" || sentence.substr(j, 3) == "\u2013") && j > 0 &&
               sentence[j - 1] == ' ') {
      end = j + 3;
    }
    if (end == 0 || end >= sentence.size() || !is_ascii_space(sentence[end])) continue;
    size_t next = end;
    while (next < sentence.size() && is_ascii_space(sentence[next])) ++next;
    clauses.push_back({start, end});
    start = next;
    j = next - 1;
  }
  if (start < sentence.size()) clauses.push_back({start, sentence.size()});
  return clauses;
}

}  // namespace

Status TextTranslator::translate(std::span<const std::string_view> texts, const TextOptions& options,
                                 TextCallback on_text) {
  // An empty call checks the options against the load limits before any work.
  if (Status s = translator_.translate_ids({}, options.search); !s.ok()) return s;
  results_.assign(texts.size(), TextResult{});
  units_.clear();
  source_ids_.clear();
  target_ids_.clear();
  trailing_.assign(texts.size(), {});
  for (size_t i = 0; i < texts.size(); ++i) add_text(static_cast<int32_t>(i), texts[i], options);
  if (Status s = on_text.fn != nullptr ? run_in_order(options, on_text) : run_batches(options); !s.ok()) return s;
  assemble();
  return {};
}

void TextTranslator::add_text(int32_t index, std::string_view text, const TextOptions& options) {
  TextResult& result = results_[index];
  size_t bad = 0;
  if (!rt::valid_utf8(text, &bad)) {
    result.status = Status::error(ErrorCode::kInvalidUtf8, "not valid UTF-8 (byte %zu)", bad);
    return;
  }
  spans_.clear();
  if (options.split) {
    split_sentences(text, options.language, &spans_);
  } else if (const SentenceSpan whole = trimmed(text); whole.end > whole.begin) {
    spans_.push_back(whole);
  }
  const size_t first_unit = units_.size(), first_id = source_ids_.size();
  const size_t limit = translator_.limits().max_src_len - 1;  // tokens without EOS
  size_t at = 0;
  for (const SentenceSpan& span : spans_) {
    const std::string_view gap = text.substr(at, span.begin - at);
    const std::string_view sentence = text.substr(span.begin, span.end - span.begin);
    at = span.end;
    std::string_view encoded = sentence;
    const bool caps = options.fold_caps && rt::is_all_caps(sentence);
    if (caps) {
      folded_.assign(sentence);
      rt::to_sentence_case(folded_, options.language);
      encoded = folded_;
    }
    if (Status s = translator_.encode(encoded, &ids_); !s.ok()) {
      result.status = s;
      break;
    }
    ++result.sentences;
    if (ids_.size() <= limit) {
      add_unit(index, gap, ids_, caps);
    } else if (!options.split) {
      result.status = Status::error(ErrorCode::kLimitExceeded,
                                    "%zu tokens with EOS, more than the limit set at load (max_src_len = %zu)",
                                    ids_.size() + 1, limit + 1);
    } else {
      ++result.cut_sentences;
      if (Status s = add_cut_sentence(index, gap, sentence, encoded, ids_, caps); !s.ok()) result.status = s;
    }
    if (!result.status.ok()) break;
  }
  if (!result.status.ok()) {
    units_.resize(first_unit);  // nothing of a rejected text is translated
    source_ids_.resize(first_id);
    return;
  }
  trailing_[index] = text.substr(at);
}

Status TextTranslator::add_cut_sentence(int32_t index, std::string_view gap, std::string_view sentence,
                                        std::string_view encoded, const std::vector<int32_t>& sentence_ids,
                                        bool caps) {
  const size_t limit = translator_.limits().max_src_len - 1;
  const std::vector<SentenceSpan> clauses = clauses_of(sentence);
  if (clauses.size() < 2) {  // no clause punctuation: cut the tokens
    add_cut_tokens(index, gap, sentence_ids, caps);
    return {};
  }
  // Greedy: the longest run of whole clauses that fits becomes a piece; a clause that does not
  // fit alone is cut by tokens.
  std::vector<int32_t> ids, piece_ids;
  bool open = false;  // a piece [piece_begin, piece_end) of whole clauses is being grown
  size_t piece_begin = 0, piece_end = 0;
  for (size_t c = 0; c < clauses.size(); ++c) {
    const SentenceSpan clause = clauses[c];
    if (open) {
      if (Status s = translator_.encode(encoded.substr(piece_begin, clause.end - piece_begin), &ids); !s.ok())
        return s;
      if (ids.size() <= limit) {
        piece_end = clause.end;
        piece_ids.swap(ids);
        continue;
      }
      add_unit(index, gap, piece_ids, caps);
      gap = sentence.substr(piece_end, clause.begin - piece_end);
      open = false;
    }
    if (Status s = translator_.encode(encoded.substr(clause.begin, clause.end - clause.begin), &ids); !s.ok())
      return s;
    if (ids.size() <= limit) {
      open = true;
      piece_begin = clause.begin;
      piece_end = clause.end;
      piece_ids.swap(ids);
      continue;
    }
    add_cut_tokens(index, gap, ids, caps);
    if (c + 1 < clauses.size()) gap = sentence.substr(clause.end, clauses[c + 1].begin - clause.end);
  }
  if (open) add_unit(index, gap, piece_ids, caps);
  return {};
}

void TextTranslator::add_unit(int32_t index, std::string_view gap, std::span<const int32_t> ids, bool caps) {
  const auto begin = static_cast<uint32_t>(source_ids_.size());
  source_ids_.insert(source_ids_.end(), ids.begin(), ids.end());
  units_.push_back({.text = index,
                    .gap = gap,
                    .source_begin = begin,
                    .source_end = static_cast<uint32_t>(source_ids_.size()),
                    .caps = caps});
}

void TextTranslator::add_cut_tokens(int32_t index, std::string_view gap, std::span<const int32_t> ids, bool caps) {
  const size_t limit = translator_.limits().max_src_len - 1;
  for (size_t at = 0; at < ids.size();) {
    size_t end = std::min(at + limit, ids.size());
    // Prefer to cut before a word, searching the last quarter of the piece.
    if (end < ids.size())
      for (size_t k = end; k > at + limit - limit / 4 && k > at + 1; --k)
        if (translator_.token_text(ids[k]).starts_with(' ')) {
          end = k;
          break;
        }
    add_unit(index, gap, ids.subspan(at, end - at), caps);
    gap = " ";
    at = end;
  }
}

Status TextTranslator::run_batches(const TextOptions& options) {
  std::vector<size_t> order(units_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Sentences of similar length share a batch: less padding, fewer steps past a short one's end.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return source_of(units_[a]).size() < source_of(units_[b]).size(); });
  const size_t batch = translator_.limits().max_batch;
  std::vector<std::span<const int32_t>> sources;
  for (size_t first = 0; first < order.size(); first += batch) {
    const size_t n = std::min(batch, order.size() - first);
    sources.clear();
    for (size_t k = 0; k < n; ++k) sources.push_back(source_of(units_[order[first + k]]));
    if (Status s = translator_.translate_ids(sources, options.search); !s.ok()) return s;
    for (size_t k = 0; k < n; ++k) store(units_[order[first + k]], translator_.results()[k]);
  }
  return {};
}

Status TextTranslator::run_in_order(const TextOptions& options, TextCallback on_text) {
  struct Forward {
    TextCallback callback;
    int32_t index;
    bool caps;
    std::string upper;
  } forward{on_text, 0, false, {}};
  const TokenCallback on_token{[](void* user, const TokenEvent& e) {
                                 auto* f = static_cast<Forward*>(user);
                                 std::string_view text = e.text;
                                 if (f->caps) {
                                   f->upper.assign(text);
                                   rt::to_upper_case(f->upper);
                                   text = f->upper;
                                 }
                                 f->callback.fn(f->callback.user, TextEvent{f->index, text});
                               },
                               &forward};
  size_t u = 0;
  for (size_t t = 0; t < results_.size(); ++t) {
    if (!results_[t].status.ok()) continue;
    forward.index = static_cast<int32_t>(t);
    for (; u < units_.size() && units_[u].text == forward.index; ++u) {
      Unit& unit = units_[u];
      if (!unit.gap.empty()) on_text.fn(on_text.user, {forward.index, unit.gap});
      const std::span<const int32_t> source = source_of(unit);
      forward.caps = unit.caps;
      if (Status s = translator_.translate_ids({&source, 1}, options.search, on_token); !s.ok()) return s;
      store(unit, translator_.results()[0]);
    }
    if (!trailing_[t].empty()) on_text.fn(on_text.user, {forward.index, trailing_[t]});
  }
  return {};
}

void TextTranslator::store(Unit& unit, const Translation& r) {
  TextResult& result = results_[unit.text];
  if (!r.status.ok() && result.status.ok()) result.status = r.status;
  unit.target_begin = static_cast<uint32_t>(target_ids_.size());
  target_ids_.insert(target_ids_.end(), r.tokens.begin(), r.tokens.end());
  unit.target_end = static_cast<uint32_t>(target_ids_.size());
  unit.log_prob = r.log_prob;
  unit.complete = r.complete;
}

void TextTranslator::assemble() {
  std::string decoded;
  for (const Unit& unit : units_) {
    TextResult& result = results_[unit.text];
    if (!result.status.ok()) continue;
    const std::span<const int32_t> tokens = target_of(unit);
    if (Status s = translator_.decode(tokens, &decoded); !s.ok()) {
      result.status = s;
      continue;
    }
    if (unit.caps) rt::to_upper_case(decoded);
    result.text.append(unit.gap).append(decoded);
    result.source_tokens += static_cast<int32_t>(source_of(unit).size() + 1);
    result.target_tokens += static_cast<int32_t>(tokens.size());
    result.log_prob += unit.log_prob;
    result.incomplete_sentences += unit.complete ? 0 : 1;
  }
  for (size_t t = 0; t < results_.size(); ++t) {
    if (results_[t].status.ok())
      results_[t].text.append(trailing_[t]);
    else
      results_[t].text.clear();
  }
}

}  // namespace pmt
