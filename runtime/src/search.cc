#include "search.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/softmax.h"
#include "kernels/top_k.h"
#include "letter_case.h"

namespace pmt::rt {
namespace {

// Wu et al. 2016: score = log_prob / ((5 + n) / 6)^alpha.
float normalized(float log_prob, size_t n, float alpha) {
  return log_prob / std::pow((5.f + static_cast<float>(n)) / 6.f, alpha);
}

// Best first; equal log-probabilities keep their (parent, rank) order, so the search is
// deterministic. Insertion sort: at most 2 * beam^2 entries, and std::stable_sort may allocate.
void sort_candidates(Search::Candidate* c, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    const Search::Candidate x = c[i];
    size_t j = i;
    for (; j > 0 && c[j - 1].log_prob < x.log_prob; --j) c[j] = c[j - 1];
    c[j] = x;
  }
}

}  // namespace

void Search::bind(ArenaLayout& arena) {
  const NetworkLimits& lim = net_->limits();
  max_tgt_ = lim.max_tgt_len;
  max_beam_ = lim.max_beam;
  const size_t batch = lim.max_batch, slots = net_->slots();
  tokens_ = arena.take<int32_t>(slots);
  slots_ = arena.take<int32_t>(slots);
  sentences_ = arena.take<int32_t>(slots);
  history_ = arena.take<int32_t>(slots * max_tgt_);
  slot_log_prob_ = arena.take<float>(slots);
  live_ = arena.take<int32_t>(slots);
  n_live_ = arena.take<int32_t>(batch);
  n_finished_ = arena.take<int32_t>(batch);
  emitted_ = arena.take<int32_t>(batch);
  done_ = arena.take<bool>(batch);
  finished_ = arena.take<Finished>(slots);
  int32_t* finished_tokens = arena.take<int32_t>(slots * max_tgt_);
  candidates_ = arena.take<Candidate>(max_beam_ * 2 * max_beam_);
  top_idx_ = arena.take<int32_t>(2 * max_beam_);
  top_val_ = arena.take<float>(2 * max_beam_);
  free_slots_ = arena.take<int32_t>(max_beam_);
  slot_kept_ = arena.take<bool>(max_beam_);
  digit_ = arena.take<int8_t>(net_->config().vocab_size);
  if (digit_ != nullptr) std::fill_n(digit_, net_->config().vocab_size, int8_t{-1});
  n_digit_tokens_ = 0;
  separator_ = arena.take<bool>(net_->config().vocab_size);
  runs_ = arena.take<PieceRun>(net_->config().vocab_size);
  if (runs_ != nullptr) std::fill_n(runs_, net_->config().vocab_size, PieceRun{});
  src_digits_ = arena.take<int8_t>(batch * lim.max_src_len);
  src_start_ = arena.take<int32_t>(batch * lim.max_src_len);
  src_len_ = arena.take<int32_t>(batch * lim.max_src_len);
  n_numbers_ = arena.take<int32_t>(batch);
  hyp_digits_ = arena.take<int8_t>(max_tgt_);
  hyp_start_ = arena.take<int32_t>(max_tgt_);
  hyp_len_ = arena.take<int32_t>(max_tgt_);
  number_used_ = arena.take<bool>(lim.max_src_len);
  if (finished_ != nullptr)
    for (size_t i = 0; i < slots; ++i) finished_[i].tokens = finished_tokens + i * max_tgt_;
}

void Search::mark_digit_piece(int32_t id, int digit) {
  if (is_digit(id) || n_digit_tokens_ == kMaxDigitTokens) return;
  digit_[id] = static_cast<int8_t>(digit);
  digit_tokens_[n_digit_tokens_++] = id;
}

namespace {
constexpr int8_t kSeparatorAfter = 16;  // number code: digit | 16 when a separator follows it
}  // namespace

size_t Search::parse_numbers(const int32_t* tokens, size_t n, int8_t* digits, int32_t* start, int32_t* len,
                             int32_t* open_len, bool* open_sep) const {
  size_t count = 0;
  int32_t d = 0;
  if (open_len != nullptr) {
    *open_len = 0;
    *open_sep = false;
  }
  for (size_t i = 0; i < n;) {
    if (!is_digit(tokens[i])) {
      ++i;
      continue;
    }
    const int32_t first = d;
    size_t j = i;
    bool sep = false;  // the number's last token is a separator (at the end of tokens)
    while (j < n) {
      if (is_digit(tokens[j])) {
        digits[d++] = digit_[tokens[j++]];
      } else if (separator_[tokens[j]] && (j + 1 == n || is_digit(tokens[j + 1]))) {
        digits[d - 1] |= kSeparatorAfter;
        sep = j + 1 == n;
        ++j;
      } else {
        break;
      }
    }
    if (j == n && open_len != nullptr) {
      *open_len = d - first;
      *open_sep = sep;
      return count;
    }
    start[count] = first;
    len[count++] = d - first;
    i = j;
  }
  return count;
}

void Search::find_numbers(std::span<const std::span<const int32_t>> numbers, size_t count) {
  const size_t max_src = net_->limits().max_src_len;
  for (size_t b = 0; b < count; ++b) {
    n_numbers_[b] = numbers.empty() ? -1
                                    : static_cast<int32_t>(parse_numbers(
                                          numbers[b].data(), numbers[b].size(), src_digits_ + b * max_src,
                                          src_start_ + b * max_src, src_len_ + b * max_src, nullptr, nullptr));
  }
}

void Search::constrain_numbers(size_t b, const int32_t* tokens, size_t pos, float* log_probs) const {
  const int32_t numbers = n_numbers_[b];
  if (numbers < 0) return;
  const size_t max_src = net_->limits().max_src_len;
  const int8_t* src = src_digits_ + b * max_src;
  const int32_t* start = src_start_ + b * max_src;
  const int32_t* len = src_len_ + b * max_src;
  // Whether source number r begins with the open number's n digits (codes: digit | separator
  // flag). Its last digit's flag is the open one's when a separator was written after it
  // (`sep`), else free: the next token decides.
  auto begins = [&](int32_t r, const int8_t* d, int32_t n, bool sep) {
    if (len[r] < n || !std::equal(d, d + std::max(n - 1, 0), src + start[r])) return false;
    return n == 0 || (sep ? src[start[r] + n - 1] == d[n - 1] : (src[start[r] + n - 1] & 15) == (d[n - 1] & 15));
  };
  // The first unused source number equal to the n digits d (a separator after the last one, as
  // in "42," before a space, is punctuation).
  auto find = [&](const int8_t* d, int32_t n) {
    for (int32_t r = 0; r < numbers; ++r)
      if (!number_used_[r] && len[r] == n && begins(r, d, n, false)) return r;
    return int32_t{-1};
  };
  // The hypothesis' closed numbers use their source numbers; one reaching its end is open.
  int32_t open_len = 0;
  bool open_sep = false;
  const size_t closed = parse_numbers(tokens, pos, hyp_digits_, hyp_start_, hyp_len_, &open_len, &open_sep);
  std::fill_n(number_used_, numbers, false);
  for (size_t i = 0; i < closed; ++i)
    if (const int32_t r = find(hyp_digits_ + hyp_start_[i], hyp_len_[i]); r >= 0) number_used_[r] = true;
  const int8_t* open = hyp_digits_ + (closed > 0 ? hyp_start_[closed - 1] + hyp_len_[closed - 1] : 0);
  int32_t unused = 0;
  for (int32_t r = 0; r < numbers; ++r) unused += number_used_[r] ? 0 : 1;
  const bool whole = open_len == 0 || find(open, open_len) >= 0;  // the open number may end here
  const bool may_end = whole && unused - (open_len > 0 ? 1 : 0) == 0;
  // What may extend the open number: a digit (by value), or a separator where the source has one.
  bool next[10] = {}, separator_next = false;
  for (int32_t r = 0; r < numbers; ++r) {
    if (number_used_[r] || len[r] <= open_len || !begins(r, open, open_len, open_sep)) continue;
    const bool source_sep = open_len > 0 && (src[start[r] + open_len - 1] & kSeparatorAfter) != 0;
    if (open_len > 0 && !open_sep && source_sep)
      separator_next = true;
    else
      next[src[start[r] + open_len] & 15] = true;
  }
  // Inside a number that is no source number yet: only what extends it.
  if (!whole) {
    for (size_t col = 0, n = net_->columns(b); col < n; ++col) {
      const int32_t token = net_->column_token(b, col);
      if (!is_digit(token) && !(separator_next && separator_[token])) log_probs[col] = -INFINITY;
    }
  } else if (!may_end) {
    if (const int32_t col = net_->token_column(b, net_->config().eos_id); col >= 0) log_probs[col] = -INFINITY;
  }
  for (size_t d = 0; d < n_digit_tokens_; ++d) {
    const int32_t col = net_->token_column(b, digit_tokens_[d]);
    if (col >= 0 && !next[digit_[digit_tokens_[d]]]) log_probs[col] = -INFINITY;
  }
}

size_t Search::unfinished_rows(size_t count) {
  size_t rows = 0;
  for (size_t b = 0; b < count; ++b) {
    if (done_[b]) continue;
    slots_[rows] = static_cast<int32_t>(b * max_beam_);
    sentences_[rows] = static_cast<int32_t>(b);
    ++rows;
  }
  return rows;
}

void Search::block_repeats(size_t b, const int32_t* tokens, size_t pos, size_t n, float* log_probs) const {
  if (n == 0 || pos + 1 < n) return;
  const int32_t* tail = tokens + pos + 1 - n;  // the n - 1 newest tokens
  bool tail_has_digit = false;
  for (size_t j = 0; j + 1 < n; ++j) tail_has_digit = tail_has_digit || is_digit(tail[j]);
  if (tail_has_digit) return;
  for (size_t i = 0; i + n <= pos; ++i) {
    if (!std::equal(tail, tail + n - 1, tokens + i)) continue;
    const int32_t next = tokens[i + n - 1];
    const int32_t column = net_->token_column(b, next);
    if (!is_digit(next) && column >= 0) log_probs[column] = -INFINITY;
  }
}

void Search::mark_piece_letters(int32_t id, std::string_view text) {
  const LetterRun first = leading_letter_run(text), last = trailing_letter_run(text);
  auto capped = [](size_t count) { return static_cast<uint8_t>(std::min<size_t>(count, 2)); };
  runs_[id] = {first.letter, last.letter, capped(first.count), capped(last.count), last.whole};
}

void Search::penalize_letters(size_t b, const int32_t* tokens, size_t pos, float penalty, float* log_probs) const {
  if (penalty == 0.f) return;
  // The letter the hypothesis ends with and how often in a row, across pieces (up to 2).
  uint32_t letter = 0;
  size_t count = 0;
  for (size_t i = pos; i-- > 0 && count < 2;) {
    const PieceRun& run = runs_[tokens[i]];
    if (run.last_count == 0 || (count > 0 && run.last != letter)) break;
    letter = run.last;
    count += run.last_count;
    if (!run.whole) break;
  }
  for (size_t col = 0, n = net_->columns(b); col < n; ++col) {
    const int32_t token = net_->column_token(b, col);
    const PieceRun& run = runs_[token];
    if (count > 0 && run.first == letter && count + run.first_count >= 3)
      log_probs[col] = -INFINITY;
    else if (is_letter_piece(token))
      log_probs[col] -= penalty;
  }
  // The same piece a third time in a row, inside a word ("ma"+"ma"+"ma") or as a whole word
  // ("conecta conecta conecta"); pieces without a letter at either end ("0", ".") may repeat.
  if (pos < 2 || tokens[pos - 1] != tokens[pos - 2]) return;
  const PieceRun& run = runs_[tokens[pos - 1]];
  if (run.first == 0 && run.last == 0) return;
  if (const int32_t col = net_->token_column(b, tokens[pos - 1]); col >= 0) log_probs[col] = -INFINITY;
}

void Search::greedy(size_t count, const int32_t* max_len, const SearchSettings& settings, TokenSink sink,
                    Hypothesis* out, std::span<const std::span<const int32_t>> numbers) {
  const ModelConfig& c = net_->config();
  const size_t V = c.vocab_size;
  find_numbers(numbers, count);
  for (size_t b = 0; b < count; ++b) {
    done_[b] = false;
    out[b] = {history(b * max_beam_), 0, 0.f, 0.f, false};
  }
  for (size_t pos = 0;; ++pos) {
    const size_t rows = unfinished_rows(count);
    if (rows == 0) return;
    for (size_t r = 0; r < rows; ++r) tokens_[r] = pos == 0 ? c.bos_id : history(slots_[r])[pos - 1];
    net_->decode(pos, rows, tokens_, slots_, sentences_);
    for (size_t r = 0; r < rows; ++r) {
      const size_t b = sentences_[r];
      float* row = net_->logits() + r * V;
      const size_t n = net_->columns(b);
      kernels::log_softmax(row, row, n);
      block_repeats(b, history(slots_[r]), pos, settings.no_repeat, row);
      penalize_letters(b, history(slots_[r]), pos, settings.letter_penalty, row);
      constrain_numbers(b, history(slots_[r]), pos, row);
      const size_t best = kernels::argmax(row, n);
      const int32_t token = net_->column_token(b, best);
      Hypothesis& h = out[b];
      h.log_prob += row[best];
      if (token == c.eos_id) {
        h.complete = true;
      } else {
        history(slots_[r])[pos] = token;
        h.length = static_cast<int32_t>(pos + 1);
        sink(b, pos, token);
      }
      if (h.complete || static_cast<int32_t>(pos + 1) == max_len[b]) {
        done_[b] = true;
        h.score = normalized(h.log_prob, h.length + (h.complete ? 1 : 0), settings.alpha);
      }
    }
  }
}

void Search::beam(size_t count, size_t k, const int32_t* max_len, const SearchSettings& settings, TokenSink sink,
                  Hypothesis* out, std::span<const std::span<const int32_t>> numbers) {
  const ModelConfig& c = net_->config();
  const size_t V = c.vocab_size;
  find_numbers(numbers, count);
  for (size_t b = 0; b < count; ++b) {
    done_[b] = false;
    n_live_[b] = 1;
    live_[b * max_beam_] = static_cast<int32_t>(b * max_beam_);
    slot_log_prob_[b * max_beam_] = 0.f;
    n_finished_[b] = 0;
    emitted_[b] = 0;
  }
  for (size_t pos = 0;; ++pos) {
    size_t rows = 0;
    for (size_t b = 0; b < count; ++b) {
      if (done_[b]) continue;
      for (int32_t j = 0; j < n_live_[b]; ++j) {
        const int32_t slot = live_[b * max_beam_ + j];
        tokens_[rows] = pos == 0 ? c.bos_id : history(slot)[pos - 1];
        slots_[rows] = slot;
        sentences_[rows] = static_cast<int32_t>(b);
        ++rows;
      }
    }
    if (rows == 0) return;
    net_->decode(pos, rows, tokens_, slots_, sentences_);

    size_t r = 0;
    for (size_t b = 0; b < count; ++b) {
      if (done_[b]) continue;
      // Every live hypothesis proposes its best extensions; rank them all.
      size_t m = 0;
      const size_t n = net_->columns(b), per_hyp = std::min(2 * k, n);
      for (int32_t j = 0; j < n_live_[b]; ++j, ++r) {
        float* row = net_->logits() + r * V;
        kernels::log_softmax(row, row, n);
        block_repeats(b, history(slots_[r]), pos, settings.no_repeat, row);
        penalize_letters(b, history(slots_[r]), pos, settings.letter_penalty, row);
        constrain_numbers(b, history(slots_[r]), pos, row);
        kernels::top_k(row, n, per_hyp, top_idx_, top_val_);
        const float base = slot_log_prob_[slots_[r]];
        // Tokens blocked above (-inf) are no extensions: each live hypothesis keeps at least one.
        for (size_t i = 0; i < per_hyp; ++i)
          if (top_val_[i] > -INFINITY) candidates_[m++] = {base + top_val_[i], net_->column_token(b, top_idx_[i]), j, -1};
      }
      sort_candidates(candidates_, m);
      size_t n_new = 0;
      for (size_t i = 0; i < m && n_new < k; ++i) {
        const Candidate cand = candidates_[i];
        if (cand.token == c.eos_id) {
          if (i < k) finish(b, k, cand, pos, settings.alpha);
          continue;
        }
        candidates_[n_new++] = cand;
      }
      if (n_finished_[b] < static_cast<int32_t>(k) && static_cast<int32_t>(pos + 1) == max_len[b]) {
        for (size_t i = 0; i < n_new; ++i) finish(b, k, candidates_[i], pos, settings.alpha);
        n_new = 0;
      }
      if (n_finished_[b] >= static_cast<int32_t>(k) || n_new == 0) {
        done_[b] = true;
        write_best(b, sink, out);
        continue;
      }
      advance(b, n_new, pos);
      stream(b, pos, sink);
    }
  }
}

void Search::finish(size_t b, size_t k, const Candidate& cand, size_t pos, float alpha) {
  const int32_t parent = live_[b * max_beam_ + cand.parent];
  const bool complete = cand.token == net_->config().eos_id;
  const size_t length = complete ? pos : pos + 1;
  const float score = normalized(cand.log_prob, pos + 1, alpha);
  Finished* list = finished_ + b * max_beam_;
  Finished* f;
  if (n_finished_[b] < static_cast<int32_t>(k)) {
    f = list + n_finished_[b]++;
  } else {
    f = std::min_element(list, list + k, [](const Finished& x, const Finished& y) { return x.score < y.score; });
    if (!(score > f->score)) return;
  }
  std::memcpy(f->tokens, history(parent), pos * sizeof(int32_t));
  if (!complete) f->tokens[pos] = cand.token;
  f->length = static_cast<int32_t>(length);
  f->log_prob = cand.log_prob;
  f->score = score;
  f->complete = complete;
}

void Search::advance(size_t b, size_t n, size_t pos) {
  const size_t base = b * max_beam_;
  const int32_t* live = live_ + base;
  std::fill_n(slot_kept_, max_beam_, false);
  for (size_t i = 0; i < n; ++i) {
    Candidate& cand = candidates_[i];
    const int32_t parent_slot = live[cand.parent];
    bool& kept = slot_kept_[parent_slot - base];
    cand.slot = kept ? -1 : parent_slot;
    kept = true;
  }
  size_t n_free = 0;
  for (size_t j = 0; j < max_beam_; ++j)
    if (!slot_kept_[j]) free_slots_[n_free++] = static_cast<int32_t>(base + j);
  // Further children of a parent copy its cache and history into a slot no child kept. Kept
  // slots are only read here, so the order of the copies does not matter.
  size_t next_free = 0;
  for (size_t i = 0; i < n; ++i) {
    Candidate& cand = candidates_[i];
    if (cand.slot >= 0) continue;
    const int32_t parent_slot = live[cand.parent];
    cand.slot = free_slots_[next_free++];
    net_->copy_cache(parent_slot, cand.slot, pos + 1);
    std::memcpy(history(cand.slot), history(parent_slot), pos * sizeof(int32_t));
  }
  for (size_t i = 0; i < n; ++i) {
    const Candidate& cand = candidates_[i];
    history(cand.slot)[pos] = cand.token;
    slot_log_prob_[cand.slot] = cand.log_prob;
    live_[base + i] = cand.slot;
  }
  n_live_[b] = static_cast<int32_t>(n);
}

void Search::stream(size_t b, size_t pos, TokenSink sink) {
  if (sink.fn == nullptr) return;
  const size_t base = b * max_beam_;
  const int32_t* first = history(live_[base]);
  size_t common = pos + 1;
  for (int32_t j = 1; j < n_live_[b]; ++j) {
    const int32_t* h = history(live_[base + j]);
    size_t i = 0;
    while (i < common && h[i] == first[i]) ++i;
    common = i;
  }
  for (int32_t f = 0; f < n_finished_[b]; ++f) {
    const Finished& fin = finished_[base + f];
    size_t i = 0;
    while (i < common && i < static_cast<size_t>(fin.length) && fin.tokens[i] == first[i]) ++i;
    common = i;
  }
  for (size_t i = emitted_[b]; i < common; ++i) sink(b, i, first[i]);
  emitted_[b] = static_cast<int32_t>(std::max<size_t>(common, emitted_[b]));
}

void Search::write_best(size_t b, TokenSink sink, Hypothesis* out) {
  const Finished* list = finished_ + b * max_beam_;
  const Finished* best =
      std::max_element(list, list + n_finished_[b], [](const Finished& x, const Finished& y) { return x.score < y.score; });
  out[b] = {best->tokens, best->length, best->log_prob, best->score, best->complete};
  for (int32_t i = emitted_[b]; i < best->length; ++i) sink(b, i, best->tokens[i]);
}

void Search::score(std::span<const std::span<const int32_t>> targets, LogitsSink sink, float* log_probs) {
  const ModelConfig& c = net_->config();
  const size_t V = c.vocab_size, count = targets.size();
  for (size_t b = 0; b < count; ++b) {
    done_[b] = false;
    log_probs[b] = 0.f;
  }
  for (size_t pos = 0;; ++pos) {
    const size_t rows = unfinished_rows(count);
    if (rows == 0) return;
    for (size_t r = 0; r < rows; ++r) tokens_[r] = pos == 0 ? c.bos_id : targets[sentences_[r]][pos - 1];
    net_->decode(pos, rows, tokens_, slots_, sentences_);
    for (size_t r = 0; r < rows; ++r) {
      const size_t b = sentences_[r];
      float* row = net_->logits() + r * V;
      if (sink.fn != nullptr) sink.fn(sink.context, b, pos, row);
      kernels::log_softmax(row, row, V);
      const bool last = pos == targets[b].size();
      log_probs[b] += row[last ? c.eos_id : targets[b][pos]];
      done_[b] = last;
    }
  }
}

}  // namespace pmt::rt
