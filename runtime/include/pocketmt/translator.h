// PocketMT translator: the C++ API of the device runtime.
//
// Load a model once, then translate sentence after sentence:
//
//   std::unique_ptr<pmt::Translator> t;
//   pmt::Status s = pmt::Translator::load("model.pmt", pmt::LoadOptions{}, &t);
//   if (!s.ok()) { std::fprintf(stderr, "%s\n", s.message()); return 2; }
//   std::string_view in[] = {"In the beginning God created the heavens and the earth."};
//   s = t->translate(in);
//   if (s.ok() && t->results()[0].status.ok()) std::cout << t->results()[0].text << "\n";
//
// Memory: `load` makes every allocation (the model mapping, XNNPACK's packed weights, one arena
// sized from LoadOptions, the tokenizer). `translate_ids` and `score_ids` then allocate nothing
// at all; `translate` allocates only inside the tokenizer's encode and decode. Inputs beyond the
// limits fixed at load are rejected with ErrorCode::kLimitExceeded, never truncated silently.
//
// Threads: one Translator serves one call at a time (calls from several threads must be
// serialized by the caller, and a token callback must not call back into the Translator that
// runs it: such a call fails with kInvalidArgument); separate Translators are independent.
// LoadOptions::threads sets the size of the Translator's own thread pool, capped at the CPUs
// the process may run on (a worker without a core of its own stalls every step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/config.h"

namespace pmt {

class ModelFile;

// Error categories. The C API (pmt.h) uses the same numbers.
enum class ErrorCode : int32_t {
  kOk = 0,
  kInvalidArgument = 1,  // an option or argument outside its documented range
  kNotFound = 2,         // the model file does not exist or cannot be read
  kBadModel = 3,         // the bytes are not a valid PocketMT model
  kLimitExceeded = 4,    // input beyond a limit fixed at load (batch size, sentence length)
  kInvalidUtf8 = 5,      // a sentence is not valid UTF-8
  kOutOfMemory = 6,      // the arena or XNNPACK's weights could not be allocated
  kBackend = 7,          // XNNPACK failed (e.g. unsupported CPU)
};
// "ok", "invalid argument", ... (static strings).
const char* error_code_name(ErrorCode code);

// The outcome of a call: a code and a human-readable message. Fixed size, so creating, copying
// or returning one never allocates.
class Status {
 public:
  Status() = default;  // ok
  // printf-style message; truncated to fit.
  static Status error(ErrorCode code, const char* format, ...) __attribute__((format(printf, 2, 3)));

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const char* message() const { return message_; }  // "" when ok

 private:
  ErrorCode code_ = ErrorCode::kOk;
  char message_[240] = {};
};

// Limits fixed at load. They size the arena: its bytes grow with
// max_batch * max_beam * max_tgt_len * d_model * n_dec_layers (the self-attention cache) and
// max_batch * max_src_len * d_model * n_dec_layers (cross-attention keys/values); see
// Translator::arena_bytes().
struct LoadOptions {
  int32_t max_batch = 1;     // sentences per call
  // Source tokens per sentence, counting the EOS the runtime appends. 0: min(128, model max_len).
  int32_t max_src_len = 0;
  // Output tokens per sentence, counting EOS. 0: min(max_src_len + 50, model max_len).
  // Both resolved values are in Translator::limits().
  int32_t max_tgt_len = 0;
  int32_t max_beam = 4;      // the largest TranslateOptions::beam a call may ask for
  // Threads working on one call, the caller's included: 1..256, capped at the CPUs the process
  // may run on (limits().threads is the number used).
  int32_t threads = 1;
};

// TranslateOptions::alpha: use the length penalty stored in the model file.
inline constexpr float kModelAlpha = -1.f;
// TranslateOptions::letter_penalty: use the letter penalty stored in the model file.
inline constexpr float kModelLetterPenalty = -1.f;

// Per-call search options, within the limits fixed at load.
struct TranslateOptions {
  int32_t beam = 4;     // 1 = greedy search; 1..LoadOptions::max_beam
  // Length penalty of Wu et al. 2016: hypotheses are ranked by log_prob / ((5 + n) / 6)^alpha
  // with n the number of scored tokens (EOS included). 0 ranks by log_prob alone. Negative (the
  // default, kModelAlpha): the model's own value, Translator::default_alpha(). Finite.
  float alpha = kModelAlpha;
  // Most output tokens per sentence, EOS included; an explicit value must be <= max_tgt_len.
  // 0: max_len_ratio * source tokens (EOS included) + max_len_extra, at least 1, capped at
  // LoadOptions::max_tgt_len: a bound relative to the source, so that a weak model's loop stops
  // near the length a translation can have instead of at the arena's limit.
  int32_t max_len = 0;
  float max_len_ratio = 2.f;   // 0..100
  int32_t max_len_extra = 10;  // 0..65536
  // Repetition block: n > 0 forbids any output n-gram of n tokens from occurring twice in a
  // hypothesis (n-grams holding a digit piece are exempt, so numbers copy through); a guard
  // against the loops of a weak model. 0 = off. The translate CLI uses 4.
  int32_t no_repeat_ngram = 0;
  // Vocabulary shortlist: when the model file has one (has_shortlist()), the output layer
  // scores only the batch's candidate tokens (the file's frequent pieces, EOS, the source pieces
  // and their lists) instead of the whole vocabulary. False: every token, as without one; such a
  // file holds the embedding once (no packed output layer), so every token's logit is then
  // computed from its rows one by one, about 3x slower per decoder step.
  bool shortlist = true;
  // Numbers copied through: every run of digits the output writes is a copy of a run of digits
  // of the source, each source run is written as often as it occurs there, and a translation
  // ends only once all are written (one cut by max_len may lack some). The model still places
  // each number and writes what surrounds it ("1,250" may become "1.250", "21st" "21.º").
  // False: digits are the model's like any token.
  bool copy_numbers = true;
  // Letter penalty: subtracted from the log-probability of every letter piece at every step. A
  // letter piece is one letter that continues a word (no word boundary before it): what a weak
  // model spells a word it does not know with, letter by letter ("arrrepepsa"), since the many
  // single letters together get much probability where it is unsure. A penalty of p makes one
  // such piece e^p times less likely; whole-word and longer pieces are untouched. A penalty
  // above 0 also forbids any piece that continues a word to make three of one letter in a row
  // (case folded, across pieces: after "a"+"r"+"r" neither "r" nor "ro"), and any piece with a
  // letter at either end to come a third time in a row ("ma"+"ma"+"ma", "conecta conecta
  // conecta"; digits and punctuation may repeat). 0 = off (all three); at most 100. Negative
  // (the default, kModelLetterPenalty): the model's own value, Translator::default_letter_penalty(). Translation::log_prob then includes the penalty.
  float letter_penalty = kModelLetterPenalty;
};

// One translated sentence. Views point into the Translator and stay valid until its next
// translate/translate_ids/score_ids call or its destruction.
struct Translation {
  // Not ok when this sentence was rejected (too long, invalid UTF-8, token id out of range);
  // the other sentences of the call are still translated. The fields below are then empty.
  Status status;
  std::span<const int32_t> tokens;  // output token ids, without BOS and EOS
  std::string_view text;            // detokenized tokens (translate() only; empty otherwise)
  // Sum of the natural-log probabilities of the scored tokens; with the shortlist, of the
  // distribution over the sentence's candidates (renormalized), so at least score_ids's value;
  // minus the letter penalty once per letter piece (TranslateOptions::letter_penalty).
  float log_prob = 0.f;
  float score = 0.f;                // log_prob / ((5 + n) / 6)^alpha: what the search maximized
  bool complete = false;            // ended with EOS (false: stopped at the length limit)
  int32_t source_tokens = 0;        // source length, the appended EOS included
};

// Streaming output: one event per output token, in order per sentence, as soon as the token is
// final. Greedy search makes every token final at once; beam search once every hypothesis it
// still keeps (live or finished) has it, so the winner is known to start with it. EOS is not
// reported.
struct TokenEvent {
  int32_t sentence;       // index in the call's batch
  int32_t position;       // 0 for the first output token of the sentence
  int32_t token;          // token id
  // The token's text: its SentencePiece piece with the word-boundary mark U+2581 turned into a
  // space (dropped at position 0). Concatenating a sentence's events gives its text except for
  // normalization details that only the final Translation::text has right.
  std::string_view text;
};
// A non-owning callback: fn(user, event). Called on the thread that called translate.
struct TokenCallback {
  void (*fn)(void* user, const TokenEvent& event) = nullptr;
  void* user = nullptr;
};

// Teacher-forced scoring: the decoder's raw output (pre-softmax logits) at one step.
struct StepLogits {
  int32_t sentence;               // index in the call's batch
  int32_t step;                   // predicts target token `step` (step == target size: EOS)
  std::span<const float> logits;  // [vocab_size], valid during the callback only
};
struct LogitsCallback {
  void (*fn)(void* user, const StepLogits& step) = nullptr;
  void* user = nullptr;
};

// Where a load's time went, wall-clock milliseconds (steady clock), to profile loading on the
// device itself. Where a second CPU is available the tokenizer is parsed on a helper thread
// while the operators are created, so the stages can add up to more than total_ms.
struct LoadTimes {
  double file_ms = 0;       // map (from a path), FlatBuffers verification, CRC-32, tokenizer inflate
  double tokenizer_ms = 0;  // SentencePiece's parse of its model (protobuf, pieces, tries)
  double operators_ms = 0;  // XNNPACK operator creation and weight packing, every Linear
  double arena_ms = 0;      // the arena's reservation and binding (embedding and norms copied in)
  double total_ms = 0;      // the whole Translator::load
};

class Translator {
 public:
  // Maps and verifies the model at `path`, creates the XNNPACK operators, allocates the arena.
  static Status load(const std::string& path, const LoadOptions& options, std::unique_ptr<Translator>* out);
  // The same from a caller's buffer (e.g. an Android asset), which is not copied: it must be
  // 64-byte aligned and stay alive and unchanged while the Translator lives.
  static Status load(const void* data, size_t size, const LoadOptions& options,
                     std::unique_ptr<Translator>* out);
  ~Translator();
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;

  const ModelConfig& config() const;
  const LoadOptions& limits() const;  // the load options with max_tgt_len resolved
  bool quantized() const;             // int8 weights (else fp32)
  // The length penalty a call gets with alpha < 0: the file's `decode.alpha` metadata (tuned on
  // validation data at export), else kFallbackAlpha.
  float default_alpha() const;
  // The letter penalty a call gets with letter_penalty < 0: the file's `decode.letter_penalty`
  // metadata (tuned on validation data at export), else 0.
  float default_letter_penalty() const;
  size_t arena_bytes() const;         // the one activation/cache/search allocation
  bool has_shortlist() const;         // the file has a vocabulary shortlist (TranslateOptions::shortlist)
  const LoadTimes& load_times() const;  // how long this Translator's load took, by stage

  // Translates UTF-8 sentences (one sentence each, no newline needed). An empty sentence, or one
  // SentencePiece turns into no tokens, gives an empty translation without running the model.
  // Errors of the call as a whole (too many sentences, options out of range) are returned;
  // errors of single sentences are in their Translation::status.
  Status translate(std::span<const std::string_view> sentences, const TranslateOptions& options = {},
                   TokenCallback on_token = {});
  // The same from token ids (without EOS, which the runtime appends; ids in [0, vocab_size)).
  // Allocation-free.
  Status translate_ids(std::span<const std::span<const int32_t>> sources,
                       const TranslateOptions& options = {}, TokenCallback on_token = {});
  // Results of the last translate/translate_ids call, one per input sentence, in input order.
  std::span<const Translation> results() const;

  // Teacher forcing: feeds BOS + targets[i] to the decoder and writes to log_probs[i] the sum of
  // the log-probabilities of targets[i] followed by EOS given sources[i]. Sources as for
  // translate_ids; targets without BOS/EOS, at most max_tgt_len - 1 tokens. `on_step` receives
  // every step's logits. Allocation-free.
  Status score_ids(std::span<const std::span<const int32_t>> sources,
                   std::span<const std::span<const int32_t>> targets, std::span<float> log_probs,
                   LogitsCallback on_step = {});

  // The model's SentencePiece tokenizer, for callers that work with ids. These allocate.
  Status encode(std::string_view text, std::vector<int32_t>* ids) const;
  Status decode(std::span<const int32_t> ids, std::string* text) const;
  // The text of token `id` as streaming reports it (TokenEvent::text): a word-initial piece
  // starts with a space unless `first`. Empty for an id outside [0, vocab_size). Valid while
  // the Translator lives.
  std::string_view token_text(int32_t id, bool first = false) const;

 private:
  struct Impl;
  explicit Translator(std::unique_ptr<Impl> impl);
  // started_ms: the load's start on the steady clock; file_ms: its file stage.
  static Status create(std::unique_ptr<ModelFile> file, const LoadOptions& options, bool mapped, double started_ms,
                       double file_ms, std::unique_ptr<Translator>* out);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pmt
