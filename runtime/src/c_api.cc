// The C API (pmt.h) over pmt::Translator. No C++ exception or type crosses it.
#include "pocketmt/pmt.h"

#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "pocketmt/text_translator.h"
#include "pocketmt/translator.h"

struct pmt_translator {
  std::unique_ptr<pmt::Translator> translator;
  std::unique_ptr<pmt::TextTranslator> text;
  // Sized at load so that a call only fills them.
  std::vector<std::string_view> sentences;
  std::vector<std::span<const int32_t>> sources;
  std::vector<std::string_view> texts;  // pmt_translate_text's, any count
};

namespace {

static_assert(static_cast<int>(PMT_BACKEND) == static_cast<int>(pmt::ErrorCode::kBackend),
              "pmt_status and pmt::ErrorCode must agree");

thread_local char last_error[256] = "";

pmt_status fail(const pmt::Status& s) {
  std::snprintf(last_error, sizeof(last_error), "%s", s.message());
  return static_cast<pmt_status>(s.code());
}

pmt_status fail(pmt_status code, const char* message) {
  std::snprintf(last_error, sizeof(last_error), "%s", message);
  return code;
}

pmt::Status too_many(size_t count, size_t limit) {
  return pmt::Status::error(pmt::ErrorCode::kLimitExceeded, "%zu sentences in one call; the limit set at load is %zu",
                            count, limit);
}

// A caller built against 0.1.x may still set the old int8_passes slot: its two-pass value must
// fail, not silently run one pass.
pmt::Status load_options(const pmt_load_options* o, pmt::LoadOptions* l) {
  if (o == nullptr) return {};
  if (o->reserved != 0 && o->reserved != 1)
    return pmt::Status::error(pmt::ErrorCode::kInvalidArgument,
                              "pmt_load_options.reserved is %d: it was int8_passes until PocketMT 0.1.x; int8 "
                              "models now run in one pass and two passes are gone, so it must be 0 (or 1)",
                              static_cast<int>(o->reserved));
  *l = {o->max_batch, o->max_src_len, o->max_tgt_len, o->max_beam, o->threads};
  return {};
}

pmt::TranslateOptions translate_options(const pmt_translate_options* o) {
  pmt::TranslateOptions t;
  if (o != nullptr)
    t = {o->beam,          o->alpha,           o->max_len,           o->max_len_ratio, o->max_len_extra,
         o->no_repeat_ngram, o->shortlist != 0, o->copy_numbers != 0, o->letter_penalty};
  return t;
}

struct CallbackContext {
  pmt_token_fn fn;
  void* user;
};

pmt::TokenCallback token_callback(CallbackContext* ctx) {
  if (ctx->fn == nullptr) return {};
  return {[](void* c, const pmt::TokenEvent& e) {
            auto* cb = static_cast<CallbackContext*>(c);
            cb->fn(cb->user, e.sentence, e.position, e.token, e.text.data(), e.text.size());
          },
          ctx};
}

pmt_status finish_load(pmt::Status s, std::unique_ptr<pmt::Translator> t, pmt_translator** out) {
  if (!s.ok()) return fail(s);
  auto* handle = new (std::nothrow) pmt_translator;
  if (handle == nullptr) return fail(PMT_OUT_OF_MEMORY, "out of memory");
  const size_t batch = t->limits().max_batch;
  handle->translator = std::move(t);
  handle->text = std::make_unique<pmt::TextTranslator>(*handle->translator);
  handle->sentences.resize(batch);
  handle->sources.resize(batch);
  *out = handle;
  return PMT_OK;
}

}  // namespace

extern "C" {

// NULL is ignored, like every other pointer this API is given in error.
void pmt_load_options_init(pmt_load_options* options) {
  if (options == nullptr) return;
  const pmt::LoadOptions d;
  *options = {d.max_batch, d.max_src_len, d.max_tgt_len, d.max_beam, d.threads, 0};
}

void pmt_translate_options_init(pmt_translate_options* options) {
  if (options == nullptr) return;
  const pmt::TranslateOptions d;
  *options = {d.beam,         d.alpha,           d.max_len,
              d.max_len_ratio, d.max_len_extra,   d.no_repeat_ngram,
              d.shortlist ? 1 : 0, d.copy_numbers ? 1 : 0, d.letter_penalty};
}

void pmt_text_options_init(pmt_text_options* options) {
  if (options == nullptr) return;
  const pmt::TextOptions d;
  pmt_translate_options_init(&options->search);
  options->split = d.split ? 1 : 0;
  options->language = nullptr;
  options->fold_caps = d.fold_caps ? 1 : 0;
}

pmt_status pmt_load(const char* path, const pmt_load_options* options, pmt_translator** out) {
  if (path == nullptr || out == nullptr) return fail(PMT_INVALID_ARGUMENT, "pmt_load: path and out must not be NULL");
  *out = nullptr;
  try {
    std::unique_ptr<pmt::Translator> t;
    pmt::LoadOptions limits;
    pmt::Status s = load_options(options, &limits);
    if (s.ok()) s = pmt::Translator::load(path, limits, &t);
    return finish_load(s, std::move(t), out);
  } catch (const std::bad_alloc&) {
    return fail(PMT_OUT_OF_MEMORY, "out of memory while loading the model");
  }
}

pmt_status pmt_load_buffer(const void* data, size_t size, const pmt_load_options* options, pmt_translator** out) {
  if (data == nullptr || out == nullptr)
    return fail(PMT_INVALID_ARGUMENT, "pmt_load_buffer: data and out must not be NULL");
  *out = nullptr;
  try {
    std::unique_ptr<pmt::Translator> t;
    pmt::LoadOptions limits;
    pmt::Status s = load_options(options, &limits);
    if (s.ok()) s = pmt::Translator::load(data, size, limits, &t);
    return finish_load(s, std::move(t), out);
  } catch (const std::bad_alloc&) {
    return fail(PMT_OUT_OF_MEMORY, "out of memory while loading the model");
  }
}

void pmt_free(pmt_translator* translator) { delete translator; }

pmt_status pmt_translate(pmt_translator* translator, const char* const* sentences, const size_t* lengths,
                         size_t count, const pmt_translate_options* options, pmt_token_fn on_token, void* user) {
  if (translator == nullptr || (sentences == nullptr && count > 0))
    return fail(PMT_INVALID_ARGUMENT, "pmt_translate: translator and sentences must not be NULL");
  if (count > translator->sentences.size()) return fail(too_many(count, translator->sentences.size()));
  for (size_t i = 0; i < count; ++i) {
    if (sentences[i] == nullptr) return fail(PMT_INVALID_ARGUMENT, "pmt_translate: a sentence is NULL");
    translator->sentences[i] = {sentences[i], lengths != nullptr ? lengths[i] : std::strlen(sentences[i])};
  }
  CallbackContext ctx{on_token, user};
  try {
    const pmt::Status s = translator->translator->translate({translator->sentences.data(), count},
                                                            translate_options(options), token_callback(&ctx));
    return s.ok() ? PMT_OK : fail(s);
  } catch (const std::bad_alloc&) {
    return fail(PMT_OUT_OF_MEMORY, "out of memory in the tokenizer");
  }
}

pmt_status pmt_translate_ids(pmt_translator* translator, const int32_t* const* sources, const size_t* lengths,
                             size_t count, const pmt_translate_options* options, pmt_token_fn on_token, void* user) {
  if (translator == nullptr || (count > 0 && (sources == nullptr || lengths == nullptr)))
    return fail(PMT_INVALID_ARGUMENT, "pmt_translate_ids: translator, sources and lengths must not be NULL");
  if (count > translator->sources.size()) return fail(too_many(count, translator->sources.size()));
  for (size_t i = 0; i < count; ++i) {
    if (sources[i] == nullptr && lengths[i] > 0)
      return fail(PMT_INVALID_ARGUMENT, "pmt_translate_ids: a source is NULL");
    translator->sources[i] = {sources[i], lengths[i]};
  }
  CallbackContext ctx{on_token, user};
  const pmt::Status s = translator->translator->translate_ids({translator->sources.data(), count},
                                                              translate_options(options), token_callback(&ctx));
  return s.ok() ? PMT_OK : fail(s);
}

pmt_status pmt_translate_text(pmt_translator* translator, const char* const* texts, const size_t* lengths,
                              size_t count, const pmt_text_options* options, pmt_text_fn on_text, void* user) {
  if (translator == nullptr || (texts == nullptr && count > 0))
    return fail(PMT_INVALID_ARGUMENT, "pmt_translate_text: translator and texts must not be NULL");
  pmt::TextOptions o;
  if (options != nullptr) {
    o.search = translate_options(&options->search);
    o.split = options->split != 0;
    if (options->language != nullptr) o.language = options->language;
    o.fold_caps = options->fold_caps != 0;
  }
  struct Forward {
    pmt_text_fn fn;
    void* user;
  } forward{on_text, user};
  pmt::TextCallback callback;
  if (on_text != nullptr)
    callback = {[](void* f, const pmt::TextEvent& e) {
                  auto* fw = static_cast<Forward*>(f);
                  fw->fn(fw->user, e.index, e.text.data(), e.text.size());
                },
                &forward};
  try {
    translator->texts.clear();
    for (size_t i = 0; i < count; ++i) {
      if (texts[i] == nullptr) return fail(PMT_INVALID_ARGUMENT, "pmt_translate_text: a text is NULL");
      translator->texts.emplace_back(texts[i], lengths != nullptr ? lengths[i] : std::strlen(texts[i]));
    }
    const pmt::Status s = translator->text->translate(translator->texts, o, callback);
    return s.ok() ? PMT_OK : fail(s);
  } catch (const std::bad_alloc&) {
    return fail(PMT_OUT_OF_MEMORY, "out of memory while translating text");
  }
}

size_t pmt_text_result_count(const pmt_translator* translator) {
  return translator == nullptr ? 0 : translator->text->results().size();
}

pmt_status pmt_get_text_result(const pmt_translator* translator, size_t index, pmt_text_result* out) {
  if (translator == nullptr || out == nullptr)
    return fail(PMT_INVALID_ARGUMENT, "pmt_get_text_result: translator and out must not be NULL");
  const auto results = translator->text->results();
  if (index >= results.size())
    return fail(pmt::Status::error(pmt::ErrorCode::kInvalidArgument, "text result %zu of %zu", index, results.size()));
  const pmt::TextResult& r = results[index];
  *out = {static_cast<pmt_status>(r.status.code()), r.status.message(), r.text.c_str(), r.text.size(),
          r.sentences, r.cut_sentences, r.incomplete_sentences};
  return PMT_OK;
}

size_t pmt_result_count(const pmt_translator* translator) {
  return translator == nullptr ? 0 : translator->translator->results().size();
}

pmt_status pmt_get_result(const pmt_translator* translator, size_t index, pmt_result* out) {
  if (translator == nullptr || out == nullptr)
    return fail(PMT_INVALID_ARGUMENT, "pmt_get_result: translator and out must not be NULL");
  const auto results = translator->translator->results();
  if (index >= results.size())
    return fail(pmt::Status::error(pmt::ErrorCode::kInvalidArgument, "result %zu of %zu", index, results.size()));
  const pmt::Translation& r = results[index];
  // text views a std::string (or is empty), so a NUL follows it.
  *out = {static_cast<pmt_status>(r.status.code()),
          r.status.message(),
          r.text.empty() ? "" : r.text.data(),
          r.text.size(),
          r.tokens.data(),
          r.tokens.size(),
          r.log_prob,
          r.score,
          r.complete ? 1 : 0};
  return PMT_OK;
}

int32_t pmt_vocab_size(const pmt_translator* translator) {
  return translator == nullptr ? 0 : translator->translator->config().vocab_size;
}

size_t pmt_arena_bytes(const pmt_translator* translator) {
  return translator == nullptr ? 0 : translator->translator->arena_bytes();
}

const char* pmt_last_error(void) { return last_error; }

const char* pmt_status_name(pmt_status status) {
  // A C caller may pass any int; in C++ loading a value outside the enum's range as pmt_status is
  // undefined (found by fuzz_c_api), so the bytes are read as the int they are.
  static_assert(sizeof(pmt_status) == sizeof(int));
  int code;
  std::memcpy(&code, &status, sizeof code);
  return pmt::error_code_name(static_cast<pmt::ErrorCode>(code));
}

const char* pmt_version(void) { return PMT_VERSION; }

}  // extern "C"
