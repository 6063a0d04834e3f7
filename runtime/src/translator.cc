#include "pocketmt/translator.h"

#include <sys/stat.h>
#include <xnnpack.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>

#include "arena.h"
#include "letter_case.h"
#include "mapped_pages.h"
#include "network.h"
#include "pocketmt/model_file.h"
#include "search.h"
#include "thread_pool.h"
#include "tokenizer.h"
#include "utf8.h"

namespace pmt {

static_assert(std::is_same_v<int, int32_t>, "the tokenizer's int ids are used as int32_t in place");

namespace {

// Threads a load uses at most, where the CPUs are there (the packing is a few dozen jobs).
constexpr size_t kLoadThreads = 4;

// Output tokens allowed beyond the longest source when the load sets no max_tgt_len.
constexpr int32_t kExtraTargetTokens = 50;
// Default source limit (tokens with EOS): a long verse is about 80 pieces.
constexpr int32_t kDefaultMaxSrcLen = 128;
// Upper bounds on the load options, far above any use, so that sizes cannot overflow.
constexpr int32_t kMaxBatchLimit = 4096, kMaxBeamLimit = 64, kMaxThreads = 256, kMaxLenExtraLimit = 1 << 16;

// Per-sentence messages do not name the sentence: its result's position does.
Status check_ids(std::span<const int32_t> ids, int32_t vocab) {
  for (size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || ids[t] >= vocab)
      return Status::error(ErrorCode::kInvalidArgument, "token id %d at position %zu is outside [0, %d)", ids[t], t,
                           vocab);
  return {};
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status check_range(const char* name, int32_t value, int32_t lo, int32_t hi) {
  if (value >= lo && value <= hi) return {};
  return Status::error(ErrorCode::kInvalidArgument, "%s = %d is outside [%d, %d]", name, value, lo, hi);
}

// XNNPACK's large allocations are the packed weights, which it writes whole right away: their
// pages are populated in one call instead of faulting in one by one (2,300 faults, about a third
// of operator creation for the general model). xnn_initialize keeps the first allocator it is
// given, so a process that initialized XNNPACK itself keeps its own.
constexpr size_t kPopulateBytes = 64 * 1024;
const xnn_allocator kXnnAllocator = {
    nullptr,
    [](void*, size_t n) { return std::malloc(n); },
    [](void*, void* p, size_t n) { return std::realloc(p, n); },
    [](void*, void* p) { std::free(p); },
    [](void*, size_t alignment, size_t n) -> void* {
      void* p = nullptr;
      if (posix_memalign(&p, alignment, n) != 0) return nullptr;
      if (n >= kPopulateBytes) rt::populate_pages(p, n);
      return p;
    },
    [](void*, void* p) { std::free(p); },
};

}  // namespace

struct Translator::Impl {
  // The pool's workers start once the operators are created (Translator::create).
  explicit Impl(int32_t threads) : pool(threads, /*yield_workers=*/false, /*start_now=*/false), search(&network) {}
  LoadTimes load_times;

  // Carves the translator's own arena buffers after the network's and the search's.
  void bind(rt::ArenaLayout& a) {
    network.bind(a);
    search.bind(a);
    const size_t batch = limits.max_batch;
    source_ids = a.take<int32_t>(batch * limits.max_src_len);
    max_len = a.take<int32_t>(batch);
    batch_index = a.take<int32_t>(batch);
    hypotheses = a.take<rt::Hypothesis>(batch);
  }

  // Checks what a call asks for against the load limits and clears its results.
  Status begin(size_t count, const TranslateOptions& options) {
    if (count > static_cast<size_t>(limits.max_batch))
      return Status::error(ErrorCode::kLimitExceeded, "%zu sentences in one call; the limit set at load is %d",
                           count, limits.max_batch);
    if (Status s = check_range("beam", options.beam, 1, limits.max_beam); !s.ok()) return s;
    if (Status s = check_range("max_len", options.max_len, 0, limits.max_tgt_len); !s.ok()) return s;
    if (Status s = check_range("no_repeat_ngram", options.no_repeat_ngram, 0, limits.max_tgt_len); !s.ok()) return s;
    if (Status s = check_range("max_len_extra", options.max_len_extra, 0, kMaxLenExtraLimit); !s.ok()) return s;
    if (!(options.max_len_ratio >= 0.f && options.max_len_ratio <= 100.f))
      return Status::error(ErrorCode::kInvalidArgument, "max_len_ratio = %g is outside [0, 100]", options.max_len_ratio);
    if (!std::isfinite(options.alpha))
      return Status::error(ErrorCode::kInvalidArgument, "alpha = %g must be finite (negative: the model's own)",
                           options.alpha);
    if (!(options.letter_penalty <= 100.f))
      return Status::error(ErrorCode::kInvalidArgument,
                           "letter_penalty = %g is outside [0, 100] (negative: the model's own)", options.letter_penalty);
    result_count = count;
    for (size_t i = 0; i < count; ++i) results[i] = Translation{};
    return {};
  }

  // Copies sources[i] + EOS into the arena as encoded sentence n; false (with the result's
  // status set) when it breaks a limit.
  bool admit(size_t i, size_t n) {
    const std::span<const int32_t> src = sources[i];
    Translation& r = results[i];
    if (src.size() + 1 > static_cast<size_t>(limits.max_src_len)) {
      r.status = Status::error(ErrorCode::kLimitExceeded,
                               "%zu tokens with EOS, more than the limit set at load (max_src_len = %d)",
                               src.size() + 1, limits.max_src_len);
      return false;
    }
    if (Status s = check_ids(src, config().vocab_size); !s.ok()) {
      r.status = s;
      return false;
    }
    int32_t* dst = source_ids + n * limits.max_src_len;
    std::copy(src.begin(), src.end(), dst);
    dst[src.size()] = config().eos_id;
    batch[n] = {dst, src.size() + 1};
    batch_index[n] = static_cast<int32_t>(i);
    r.source_tokens = static_cast<int32_t>(src.size() + 1);
    return true;
  }

  // Translates sources[0..count) whose result is still ok; empty ones stay empty.
  void translate_batch(size_t count, const TranslateOptions& options, TokenCallback on_token) {
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
      if (!results[i].status.ok()) continue;
      if (sources[i].empty()) {
        results[i].complete = true;
        continue;
      }
      if (!admit(i, n)) continue;
      const auto relative = static_cast<int32_t>(options.max_len_ratio * static_cast<float>(batch[n].size())) +
                            options.max_len_extra;
      max_len[n] = options.max_len > 0 ? options.max_len : std::clamp(relative, 1, limits.max_tgt_len);
      ++n;
    }
    if (n == 0) return;
    network.encode({batch.data(), n}, options.shortlist);
    struct SinkContext {
      Impl* impl;
      TokenCallback callback;
    } context{this, on_token};
    rt::TokenSink sink;
    if (on_token.fn != nullptr) {
      sink.context = &context;
      sink.fn = [](void* c, size_t b, size_t position, int32_t token) {
        auto* ctx = static_cast<SinkContext*>(c);
        const TokenEvent event{ctx->impl->batch_index[b], static_cast<int32_t>(position), token,
                               ctx->impl->tokenizer.piece_text(token, position == 0)};
        ctx->callback.fn(ctx->callback.user, event);
      };
    }
    const rt::SearchSettings settings{
        options.alpha < 0.f ? file->default_alpha() : options.alpha, static_cast<size_t>(options.no_repeat_ngram),
        options.letter_penalty < 0.f ? file->default_letter_penalty() : options.letter_penalty};
    const std::span<const std::span<const int32_t>> numbers =
        options.copy_numbers ? std::span<const std::span<const int32_t>>(batch.data(), n)
                             : std::span<const std::span<const int32_t>>();
    if (options.beam == 1)
      search.greedy(n, max_len, settings, sink, hypotheses, numbers);
    else
      search.beam(n, options.beam, max_len, settings, sink, hypotheses, numbers);
    for (size_t k = 0; k < n; ++k) {
      const rt::Hypothesis& h = hypotheses[k];
      Translation& r = results[batch_index[k]];
      r.tokens = {h.tokens, static_cast<size_t>(h.length)};
      r.log_prob = h.log_prob;
      r.score = h.score;
      r.complete = h.complete;
    }
  }

  const ModelConfig& config() const { return network.config(); }

  LoadOptions limits;
  std::unique_ptr<ModelFile> file;
  rt::ThreadPool pool;
  rt::Network network;
  rt::Search search;
  rt::Tokenizer tokenizer;
  rt::Arena arena;
  // Arena memory: sources with EOS [max_batch][max_src_len], per encoded sentence its length
  // limit, its index in the call, its result.
  int32_t* source_ids = nullptr;
  int32_t* max_len = nullptr;
  int32_t* batch_index = nullptr;
  rt::Hypothesis* hypotheses = nullptr;
  // Sized at load, reused by every call (max_batch entries each).
  std::vector<std::span<const int32_t>> sources, batch;
  std::vector<Translation> results;
  size_t result_count = 0;
  bool in_call = false;  // see CallScope
  std::vector<std::vector<int>> ids;  // the string path's token ids, per sentence
  std::vector<std::string> texts;     // the string path's translations
};

namespace {

// Marks a call in progress. A token or logits callback that calls back into the same Translator
// would overwrite the arena and the results the outer call is still using; that call fails.
class CallScope {
 public:
  explicit CallScope(bool* in_call) : flag_(*in_call ? nullptr : in_call) {
    if (flag_ != nullptr) *flag_ = true;
  }
  ~CallScope() {
    if (flag_ != nullptr) *flag_ = false;
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
  bool reentered() const { return flag_ == nullptr; }
  static Status error() {
    return Status::error(ErrorCode::kInvalidArgument,
                         "called from inside a callback of a call on the same Translator");
  }

 private:
  bool* flag_;
};

}  // namespace

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

const ModelConfig& Translator::config() const { return impl_->config(); }
const LoadOptions& Translator::limits() const { return impl_->limits; }
bool Translator::quantized() const { return impl_->file->quantized(); }
float Translator::default_alpha() const { return impl_->file->default_alpha(); }
float Translator::default_letter_penalty() const { return impl_->file->default_letter_penalty(); }
size_t Translator::arena_bytes() const { return impl_->arena.size(); }
const LoadTimes& Translator::load_times() const { return impl_->load_times; }
bool Translator::has_shortlist() const { return impl_->network.has_shortlist(); }
std::span<const Translation> Translator::results() const { return {impl_->results.data(), impl_->result_count}; }

namespace {

// Resolves max_tgt_len and checks every load option against the model.
Status resolve_limits(const ModelConfig& c, LoadOptions* o) {
  if (o->max_src_len == 0) o->max_src_len = std::min(kDefaultMaxSrcLen, c.max_len);
  // In 64 bits: max_src_len is not checked yet and may be INT32_MAX.
  if (o->max_tgt_len == 0)
    o->max_tgt_len = static_cast<int32_t>(std::min<int64_t>(int64_t{o->max_src_len} + kExtraTargetTokens, c.max_len));
  Status s = check_range("max_batch", o->max_batch, 1, kMaxBatchLimit);
  if (s.ok()) s = check_range("max_src_len", o->max_src_len, 2, c.max_len);
  if (s.ok()) s = check_range("max_tgt_len", o->max_tgt_len, 1, c.max_len);
  if (s.ok()) s = check_range("max_beam", o->max_beam, 1, kMaxBeamLimit);
  if (s.ok()) s = check_range("threads", o->threads, 1, kMaxThreads);
  // More threads than cores makes every step wait for descheduled workers (64 threads on 2
  // cores: 111 s for three words), so the pool is capped rather than the caller trusted.
  if (s.ok()) o->threads = std::min(o->threads, rt::available_cpus());
  return s;
}

}  // namespace

Status Translator::create(std::unique_ptr<ModelFile> file, const LoadOptions& options, bool mapped,
                          double started_ms, double file_ms, std::unique_ptr<Translator>* out) {
  LoadTimes times{.file_ms = file_ms};
  LoadOptions limits = options;
  if (Status s = resolve_limits(file->config(), &limits); !s.ok()) return s;
  if (xnn_initialize(&kXnnAllocator) != xnn_status_success)
    return Status::error(ErrorCode::kBackend, "XNNPACK does not support this CPU");
  auto impl = std::make_unique<Impl>(limits.threads);
  impl->limits = limits;
  impl->file = std::move(file);
  const ModelFile& f = *impl->file;
  // The tokenizer's parse (piece table, character map) and the weight packing share nothing;
  // the packing is itself independent jobs (Network::plan). With
  // more CPUs, helper threads take them: the first parses the tokenizer, then every thread packs
  // until no operator is left (sequential where no thread can be started).
  const rt::NetworkLimits net_limits{limits.max_batch, limits.max_src_len, limits.max_tgt_len, limits.max_beam};
  const double operators_start = now_ms();
  std::string network_error = impl->network.plan(f, net_limits, &impl->pool, mapped);
  std::string tokenizer_error;
  Impl* loading = impl.get();
  auto parse = [loading, &f, &tokenizer_error, &times] {
    const double start = now_ms();
    tokenizer_error = loading->tokenizer.load(f.tokenizer(), f.config());
    times.tokenizer_ms = now_ms() - start;
  };
  const size_t workers = std::clamp<size_t>(rt::available_cpus(), 1, kLoadThreads);
  std::vector<double> packed_at(workers, operators_start);  // when each thread found no job left
  auto pack = [loading, &packed_at](size_t w) {
    loading->network.create_operators();
    packed_at[w] = now_ms();
  };
  std::vector<std::thread> helpers;
  for (size_t w = 1; w < workers; ++w) {
    try {
      helpers.emplace_back([&parse, &pack, w] {
        if (w == 1) parse();
        pack(w);
      });
    } catch (const std::system_error&) {
      break;
    }
  }
  if (helpers.empty()) parse();
  pack(0);
  for (std::thread& h : helpers) h.join();
  times.operators_ms = *std::max_element(packed_at.begin(), packed_at.end()) - operators_start;
  if (network_error.empty()) network_error = impl->network.creation_error();
  if (!tokenizer_error.empty()) return Status::error(ErrorCode::kBadModel, "%s", tokenizer_error.c_str());
  impl->file->release_tokenizer();  // the tokenizer holds its own copies now
  if (!network_error.empty()) return Status::error(ErrorCode::kBadModel, "%s", network_error.c_str());
  // Only now: new workers spin waiting for work, which would take a CPU from the load's helpers
  // (20 ms of CPU per load on 2 CPUs with threads = 2).
  if (!impl->pool.start()) return Status::error(ErrorCode::kOutOfMemory, "cannot start %d threads", limits.threads);

  const double arena_start = now_ms();
  rt::ArenaLayout measure;
  impl->bind(measure);
  if (!impl->arena.allocate(measure.bytes()))
    return Status::error(ErrorCode::kOutOfMemory, "cannot reserve %zu bytes for the arena", measure.bytes());
  rt::ArenaLayout layout(impl->arena.data());
  impl->bind(layout);
  times.arena_ms = now_ms() - arena_start;
  for (int32_t id = 0; id < f.config().vocab_size; ++id) {
    const std::string_view piece = impl->tokenizer.piece_text(id, true);
    if (piece.size() == 1 && piece[0] >= '0' && piece[0] <= '9') impl->search.mark_digit_piece(id, piece[0] - '0');
    if (const std::string_view text = impl->tokenizer.piece_text(id, false); text == "," || text == ".")
      impl->search.mark_number_separator(id);
    impl->search.mark_piece_letters(id, impl->tokenizer.piece_text(id, false));
  }

  const size_t batch = limits.max_batch;
  impl->sources.resize(batch);
  impl->batch.resize(batch);
  impl->results.resize(batch);
  impl->ids.resize(batch);
  impl->texts.resize(batch);
  for (auto& v : impl->ids) v.reserve(std::max(limits.max_src_len, limits.max_tgt_len));
  times.total_ms = now_ms() - started_ms;
  impl->load_times = times;
  out->reset(new Translator(std::move(impl)));
  return {};
}

Status Translator::load(const std::string& path, const LoadOptions& options, std::unique_ptr<Translator>* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status::error(ErrorCode::kNotFound, "cannot open model %s: %s", path.c_str(), std::strerror(errno));
  const double started_ms = now_ms();
  std::string error;
  std::unique_ptr<ModelFile> file = ModelFile::open(path, &error);
  if (file == nullptr) return Status::error(ErrorCode::kBadModel, "%s", error.c_str());
  // Verification read every page; operator creation reads each weight once more.
  rt::release_mapped_pages(file->data(), file->size());
  return create(std::move(file), options, true, started_ms, now_ms() - started_ms, out);
}

Status Translator::load(const void* data, size_t size, const LoadOptions& options, std::unique_ptr<Translator>* out) {
  const double started_ms = now_ms();
  std::string error;
  std::unique_ptr<ModelFile> file = ModelFile::from_buffer(data, size, &error);
  if (file == nullptr) return Status::error(ErrorCode::kBadModel, "%s", error.c_str());
  return create(std::move(file), options, false, started_ms, now_ms() - started_ms, out);
}

Status Translator::translate_ids(std::span<const std::span<const int32_t>> sources, const TranslateOptions& options,
                                 TokenCallback on_token) {
  Impl& m = *impl_;
  const CallScope call(&m.in_call);
  if (call.reentered()) return CallScope::error();
  if (Status s = m.begin(sources.size(), options); !s.ok()) return s;
  std::copy(sources.begin(), sources.end(), m.sources.begin());
  m.translate_batch(sources.size(), options, on_token);
  return {};
}

Status Translator::translate(std::span<const std::string_view> sentences, const TranslateOptions& options,
                             TokenCallback on_token) {
  Impl& m = *impl_;
  const CallScope call(&m.in_call);
  if (call.reentered()) return CallScope::error();
  const size_t count = sentences.size();
  if (Status s = m.begin(count, options); !s.ok()) return s;
  std::string error;
  for (size_t i = 0; i < count; ++i) {
    m.sources[i] = {};
    size_t bad = 0;
    if (!rt::valid_utf8(sentences[i], &bad)) {
      m.results[i].status =
          Status::error(ErrorCode::kInvalidUtf8, "not valid UTF-8 (byte %zu)", bad);
    } else if (!m.tokenizer.encode(sentences[i], &m.ids[i], &error)) {
      m.results[i].status = Status::error(ErrorCode::kBackend, "%s", error.c_str());
    } else {
      m.sources[i] = m.ids[i];
    }
  }
  m.translate_batch(count, options, on_token);
  for (size_t i = 0; i < count; ++i) {
    Translation& r = m.results[i];
    if (!r.status.ok() || r.tokens.empty()) continue;
    m.ids[i].assign(r.tokens.begin(), r.tokens.end());
    if (!m.tokenizer.decode(m.ids[i], &m.texts[i], &error))
      r.status = Status::error(ErrorCode::kBackend, "%s", error.c_str());
    else
      r.text = m.texts[i];
  }
  return {};
}

Status Translator::score_ids(std::span<const std::span<const int32_t>> sources,
                             std::span<const std::span<const int32_t>> targets, std::span<float> log_probs,
                             LogitsCallback on_step) {
  Impl& m = *impl_;
  const CallScope call(&m.in_call);
  if (call.reentered()) return CallScope::error();
  const size_t count = sources.size();
  if (targets.size() != count || log_probs.size() != count)
    return Status::error(ErrorCode::kInvalidArgument, "score_ids: %zu sources, %zu targets, %zu outputs", count,
                         targets.size(), log_probs.size());
  if (Status s = m.begin(count, TranslateOptions{.beam = 1}); !s.ok()) return s;
  for (size_t b = 0; b < count; ++b) {
    if (targets[b].size() + 1 > static_cast<size_t>(m.limits.max_tgt_len))
      return Status::error(ErrorCode::kLimitExceeded,
                           "target %zu has %zu tokens with EOS; the limit set at load (max_tgt_len) is %d", b,
                           targets[b].size() + 1, m.limits.max_tgt_len);
    if (Status s = check_ids(targets[b], m.config().vocab_size); !s.ok())
      return Status::error(s.code(), "target %zu: %s", b, s.message());
    m.sources[b] = sources[b];
    if (!m.admit(b, b)) return Status::error(m.results[b].status.code(), "source %zu: %s", b, m.results[b].status.message());
  }
  m.network.encode({m.batch.data(), count}, false);  // every token has a logit
  struct SinkContext {
    LogitsCallback callback;
    size_t vocab;
  } context{on_step, static_cast<size_t>(m.config().vocab_size)};
  rt::LogitsSink sink;
  if (on_step.fn != nullptr) {
    sink.context = &context;
    sink.fn = [](void* c, size_t b, size_t step, const float* logits) {
      auto* ctx = static_cast<SinkContext*>(c);
      ctx->callback.fn(ctx->callback.user,
                       StepLogits{static_cast<int32_t>(b), static_cast<int32_t>(step), {logits, ctx->vocab}});
    };
  }
  m.search.score(targets, sink, log_probs.data());
  m.result_count = 0;
  return {};
}

Status Translator::encode(std::string_view text, std::vector<int32_t>* ids) const {
  size_t bad = 0;
  if (!rt::valid_utf8(text, &bad))
    return Status::error(ErrorCode::kInvalidUtf8, "text is not valid UTF-8 (byte %zu)", bad);
  std::string error;
  if (!impl_->tokenizer.encode(text, ids, &error)) return Status::error(ErrorCode::kBackend, "%s", error.c_str());
  return {};
}

std::string_view Translator::token_text(int32_t id, bool first) const {
  if (id < 0 || id >= config().vocab_size) return {};
  return impl_->tokenizer.piece_text(id, first);
}

Status Translator::decode(std::span<const int32_t> ids, std::string* text) const {
  if (Status s = check_ids(ids, config().vocab_size); !s.ok()) return s;
  std::string error;
  if (!impl_->tokenizer.decode(std::vector<int>(ids.begin(), ids.end()), text, &error))
    return Status::error(ErrorCode::kBackend, "%s", error.c_str());
  return {};
}

}  // namespace pmt
