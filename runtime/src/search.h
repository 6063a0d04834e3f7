// Greedy search, beam search and teacher-forced scoring over a Network, for a batch of encoded
// sentences decoded in lockstep (one decoder step for every unfinished hypothesis at once).
// State lives in the arena; nothing is allocated.
//
// Beam search (as in fairseq and Wu et al. 2016): every step, each live hypothesis proposes its
// 2k best next tokens; the 2k best extensions of the sentence are ranked by log-probability; an
// extension ending in EOS among the first k is finished, scored log_prob / ((5 + n) / 6)^alpha
// with n its scored tokens; the first k others stay live. A sentence is done when it has k
// finished hypotheses or reaches its length limit (its live hypotheses then finish without
// EOS); the best score wins. Keys/values follow their hypothesis without a full reorder: a
// parent's first child keeps the parent's cache slot, only further children copy it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "arena.h"
#include "network.h"

namespace pmt::rt {

// The best hypothesis of one sentence. tokens point into the Search's arena memory.
struct Hypothesis {
  const int32_t* tokens = nullptr;  // without BOS and EOS
  int32_t length = 0;
  float log_prob = 0.f;
  float score = 0.f;
  bool complete = false;  // ended with EOS
};

// Receives each output token of sentence `b` once final, in order (see translator.h TokenEvent).
struct TokenSink {
  void (*fn)(void* context, size_t b, size_t position, int32_t token) = nullptr;
  void* context = nullptr;
  void operator()(size_t b, size_t position, int32_t token) const {
    if (fn != nullptr) fn(context, b, position, token);
  }
};

// Receives the raw logits of teacher-forced step `step` of sentence `b`.
struct LogitsSink {
  void (*fn)(void* context, size_t b, size_t step, const float* logits) = nullptr;
  void* context = nullptr;
};

// What one call asks of the search besides its sentences (see Search::greedy).
struct SearchSettings {
  float alpha = 0.6f;          // length penalty exponent (Wu et al. 2016)
  size_t no_repeat = 0;        // repetition block: n-gram size, 0 = off
  float letter_penalty = 0.f;  // subtracted per letter piece, >= 0
};

class Search {
 public:
  explicit Search(Network* network) : net_(network) {}
  void bind(ArenaLayout& arena);

  // Marks token `id` as a piece that writes the single digit `digit` (0-9): exempt from the
  // repetition block (numbers legitimately repeat digits: 1,000,000) and the unit of number
  // copying, which compares digits, not ids (a byte-fallback piece writes a digit too). Call
  // after bind, once per such piece (at most kMaxDigitTokens).
  void mark_digit_piece(int32_t id, int digit);
  // Marks token `id` ("," or ".") as a separator inside numbers: between two digits it joins
  // them into one number (1,250 and 1.250 are both the number 1250).
  void mark_number_separator(int32_t id) { separator_[id] = true; }
  // Tells the search the text token `id` writes inside a sentence (a leading space where it
  // starts a word), from which it keeps the letter runs the text begins and ends with. A piece
  // that is one letter inside a word is a letter piece, what a model spells an unfamiliar word
  // with (settings.letter_penalty). Call after bind, for every token (one never told has no
  // letters).
  void mark_piece_letters(int32_t id, std::string_view text);
  static constexpr size_t kMaxDigitTokens = 32;

  // The sentences were encoded by network->encode() (sentence b = index b). max_len[b]: most
  // output tokens of sentence b, EOS included, <= max_tgt_len. Results in out[b].
  // settings.no_repeat > 0: no hypothesis produces an n-gram of no_repeat tokens it already
  // holds, unless the n-gram has a digit piece (a guard against the loops of a weak model, as
  // no_repeat_ngram_size in CTranslate2 and fairseq).
  // settings.letter_penalty > 0: subtracted from the log-probability of every letter piece
  // (mark_piece_letters) at every step, so a hypothesis's log_prob is its log-probability minus
  // letter_penalty per letter piece it holds; and no piece that continues a word writes a
  // letter a third time in a row (case folded, across pieces: after "a"+"r"+"r" neither "r"
  // nor "ro" may follow), and no piece with a letter at either end comes a third time in a row
  // ("ma"+"ma"+"ma", "conecta conecta conecta"), the babble a weak model falls into ("arrró",
  // "mamamaja"); see TranslateOptions::letter_penalty.
  // numbers: empty, or the encoded sources (numbers[b] for sentence b, each within max_src_len)
  // whose numbers every output copies. A number is a run of digit pieces, a separator piece
  // between two digits joining it (its value is its digits: 1,250.5 is 12505). Each number of
  // the output is one of the source's, each source number is written as often as it occurs
  // there with separators where the source has them (either one: 1,250 may become 1.250), and
  // EOS comes only after all of them (a hypothesis stopped by max_len may lack some). The model
  // still chooses where each number goes and what surrounds it.
  void greedy(size_t count, const int32_t* max_len, const SearchSettings& settings, TokenSink sink, Hypothesis* out,
              std::span<const std::span<const int32_t>> numbers = {});
  void beam(size_t count, size_t k, const int32_t* max_len, const SearchSettings& settings, TokenSink sink,
            Hypothesis* out, std::span<const std::span<const int32_t>> numbers = {});
  // log_probs[b] = log P(targets[b] + EOS | source b), feeding BOS + targets[b].
  void score(std::span<const std::span<const int32_t>> targets, LogitsSink sink, float* log_probs);

  // One extension of a live hypothesis.
  struct Candidate {
    float log_prob;
    int32_t token;
    int32_t parent;  // index in the sentence's live list
    int32_t slot;    // cache slot given to the extension
  };

 private:
  // Lists the sentences not done yet as decoder rows (slots_, sentences_: one per row, the
  // sentence's first beam slot) and returns how many; the caller fills tokens_.
  size_t unfinished_rows(size_t count);
  struct Finished {
    int32_t* tokens;  // max_tgt_len entries
    int32_t length;
    float log_prob, score;
    bool complete;
  };

  int32_t* history(size_t slot) const { return history_ + slot * max_tgt_; }
  // Sets to -inf the log-probability of every token that would complete a second copy of an
  // n-gram of tokens[0..pos), except n-grams with a digit piece. log_probs: one row of sentence
  // b's logit columns.
  void block_repeats(size_t b, const int32_t* tokens, size_t pos, size_t n, float* log_probs) const;
  // Subtracts `penalty` (> 0; 0 = off) from the log-probability of every letter piece among
  // sentence b's columns, and sets to -inf every piece that would continue the letter run that
  // the hypothesis tokens[0..pos) ends with to three, and the piece it ends with twice.
  void penalize_letters(size_t b, const int32_t* tokens, size_t pos, float penalty, float* log_probs) const;
  // The numbers of tokens[0..n) as digit codes (the digit, plus 16 where a separator follows
  // it, appended to digits[]) and [start, length) spans of them; returns how many. With `open`, a number that reaches the end stays open: *open_len
  // gets its digit count (0: none) and *open_sep whether a separator follows its last digit.
  size_t parse_numbers(const int32_t* tokens, size_t n, int8_t* digits, int32_t* start, int32_t* len,
                       int32_t* open_len, bool* open_sep) const;
  // Lists the numbers of each source for constrain_numbers (none: the constraint is off).
  void find_numbers(std::span<const std::span<const int32_t>> numbers, size_t count);
  // Sets to -inf the log-probability of every token that would break number copying (see
  // greedy) for the hypothesis tokens[0..pos) of sentence b. By induction over the steps, a
  // hypothesis built under it always has a token left: its open number is a prefix of an
  // unused source number, whose next digit is a source piece and so one of b's columns.
  void constrain_numbers(size_t b, const int32_t* tokens, size_t pos, float* log_probs) const;
  // Adds one finished hypothesis of sentence b (parent's tokens, then `token` unless it is EOS),
  // replacing the worst when k are already kept.
  void finish(size_t b, size_t k, const Candidate& c, size_t pos, float alpha);
  // Moves the chosen extensions of sentence b into cache slots and histories (see file comment).
  void advance(size_t b, size_t n, size_t pos);
  // Emits the tokens every kept hypothesis of sentence b agrees on.
  void stream(size_t b, size_t pos, TokenSink sink);
  void write_best(size_t b, TokenSink sink, Hypothesis* out);

  Network* net_;
  size_t max_tgt_ = 0, max_beam_ = 0;
  // Step inputs, one per decoder row.
  int32_t *tokens_ = nullptr, *slots_ = nullptr, *sentences_ = nullptr;
  // Per slot: the tokens so far and their log-probability.
  int32_t* history_ = nullptr;
  float* slot_log_prob_ = nullptr;
  // Per sentence: live slots [max_beam], count, finished hypotheses [max_beam], state.
  int32_t *live_ = nullptr, *n_live_ = nullptr, *n_finished_ = nullptr, *emitted_ = nullptr;
  bool* done_ = nullptr;
  Finished* finished_ = nullptr;
  // Working lists of one sentence's step.
  Candidate* candidates_ = nullptr;  // [max_beam * 2 * max_beam]
  int32_t *top_idx_ = nullptr, *free_slots_ = nullptr;
  float* top_val_ = nullptr;
  bool* slot_kept_ = nullptr;
  int8_t* digit_ = nullptr;  // [vocab_size]: the digit a token writes, -1 for none
  bool is_digit(int32_t token) const { return digit_[token] >= 0; }
  int32_t digit_tokens_[kMaxDigitTokens] = {};
  size_t n_digit_tokens_ = 0;
  bool* separator_ = nullptr;  // [vocab_size]
  // Per token [vocab_size]: the letter runs its text begins and ends with (mark_piece_letters),
  // counts capped at 2 (all that the letter rule needs). A text that is one letter run has
  // both; one that starts a word has no leading run.
  struct PieceRun {
    uint32_t first = 0, last = 0;  // the letters, case folded; 0: none
    uint8_t first_count = 0, last_count = 0;
    bool whole = false;  // the text is one letter run
  };
  PieceRun* runs_ = nullptr;
  bool is_letter_piece(int32_t token) const { return runs_[token].whole && runs_[token].last_count == 1; }
  // Number copying: per sentence the digits and numbers of its source ([max_batch][max_src_len]
  // each; count -1 = off); for one hypothesis its digits, numbers and used-number flags.
  int8_t* src_digits_ = nullptr;
  int32_t *src_start_ = nullptr, *src_len_ = nullptr, *n_numbers_ = nullptr;
  int8_t* hyp_digits_ = nullptr;
  int32_t *hyp_start_ = nullptr, *hyp_len_ = nullptr;
  bool* number_used_ = nullptr;
};

}  // namespace pmt::rt
