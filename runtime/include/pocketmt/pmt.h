/* PocketMT C API: a stable C ABI over pmt::Translator (translator.h) for JNI, Swift, Python
 * ctypes and plain C. Opaque handle, status codes, plain structs, no C++ types.
 *
 *   pmt_translator* t = NULL;
 *   if (pmt_load("model.pmt", NULL, &t) != PMT_OK) { fprintf(stderr, "%s\n", pmt_last_error()); }
 *   const char* in[] = {"Jesus wept."};
 *   if (pmt_translate(t, in, NULL, 1, NULL, NULL, NULL) == PMT_OK) {
 *     pmt_result r;
 *     pmt_get_result(t, 0, &r);
 *     if (r.status == PMT_OK) printf("%s\n", r.text);
 *   }
 *   pmt_free(t);
 *
 * Errors: every function that can fail returns a pmt_status; on failure pmt_last_error() gives a
 * message for the calling thread. Memory and threads: as in translator.h (no allocation per
 * call on the id path; one call at a time per handle, and a token callback calling back into
 * its own handle gets PMT_INVALID_ARGUMENT; handles are independent).
 */
#ifndef POCKETMT_PMT_H_
#define POCKETMT_PMT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The values of pmt::ErrorCode. */
typedef enum pmt_status {
  PMT_OK = 0,
  PMT_INVALID_ARGUMENT = 1, /* an option or argument outside its documented range */
  PMT_NOT_FOUND = 2,        /* the model file does not exist or cannot be read */
  PMT_BAD_MODEL = 3,        /* the bytes are not a valid PocketMT model */
  PMT_LIMIT_EXCEEDED = 4,   /* input beyond a limit fixed at load (batch size, sentence length) */
  PMT_INVALID_UTF8 = 5,     /* a sentence is not valid UTF-8 */
  PMT_OUT_OF_MEMORY = 6,
  PMT_BACKEND = 7           /* XNNPACK failed */
} pmt_status;

typedef struct pmt_translator pmt_translator;

/* Limits fixed at load (see pmt::LoadOptions). Fill with pmt_load_options_init first. */
typedef struct pmt_load_options {
  int32_t max_batch;   /* sentences per call */
  int32_t max_src_len; /* source tokens per sentence, appended EOS included; 0: min(128, model max) */
  int32_t max_tgt_len; /* output tokens per sentence, EOS included; 0: min(max_src_len + 50, model max) */
  int32_t max_beam;    /* largest beam a call may ask for */
  int32_t threads;     /* threads per call, the caller's included; capped at the CPUs available */
  /* Was int8_passes until 0.1.x; int8 models run in one pass since 0.2.0. Kept so that the
   * struct's layout does not change: 0 (what pmt_load_options_init sets) or 1 (the one-pass
   * value of 0.1.x); any other value, e.g. the two-pass 2, fails with PMT_INVALID_ARGUMENT. */
  int32_t reserved;
} pmt_load_options;

/* Search options of one call (see pmt::TranslateOptions). Fill with pmt_translate_options_init. */
typedef struct pmt_translate_options {
  int32_t beam;  /* 1 = greedy; 1..max_beam */
  float alpha;   /* length penalty exponent (Wu et al. 2016), finite; < 0 (the default): the
                    model file's own (decode.alpha), 0.6 where it has none */
  int32_t max_len; /* output tokens incl. EOS; 0: max_len_ratio * source tokens (EOS included)
                      + max_len_extra, capped at max_tgt_len */
  float max_len_ratio;   /* 0..100 (default 2) */
  int32_t max_len_extra; /* 0..65536 (default 10) */
  int32_t no_repeat_ngram; /* n > 0: no output n-gram twice (digit n-grams exempt); 0 = off */
  int32_t shortlist;       /* 1 (default): score only the vocabulary shortlist's candidates when the
                              model file has one; 0: every token (from the embedding rows one by
                              one, about 3x slower per step, since such a file holds no packed
                              output layer) */
  int32_t copy_numbers;    /* 1 (default): the output's numbers are exactly the source's (each as
                              often, separators where the source has them); 0: the model's */
  float letter_penalty;    /* subtracted from the log-probability of every one-letter piece inside
                              a word, against spelling unknown words letter by letter; above 0 it
                              also forbids a piece inside a word to make three of one letter in a
                              row, and any piece with a letter at either end (a syllable or a
                              whole word) to come a third time in a row; 0 = off, at most 100; < 0
                              (the default): the model file's own (decode.letter_penalty), 0 where
                              it has none */
} pmt_translate_options;

/* One sentence of the last call. Pointers stay valid until the next call on the handle. */
typedef struct pmt_result {
  pmt_status status;     /* PMT_OK, or why this sentence was rejected */
  const char* error;     /* "" when status == PMT_OK */
  const char* text;      /* NUL-terminated UTF-8 translation ("" for pmt_translate_ids) */
  size_t text_length;    /* bytes, without the NUL */
  const int32_t* tokens; /* output ids without BOS/EOS */
  size_t token_count;
  float log_prob;        /* natural-log probability of the scored tokens (with the shortlist: over
                            the sentence's candidates, renormalized) */
  float score;           /* log_prob / ((5 + n) / 6)^alpha */
  int32_t complete;      /* 1: ended with EOS; 0: stopped at the length limit */
} pmt_result;

/* Streaming: called for each output token once final (see pmt::TokenEvent); `text` is the
 * token's text, not NUL-terminated, valid during the call only. */
typedef void (*pmt_token_fn)(void* user, int32_t sentence, int32_t position, int32_t token,
                             const char* text, size_t text_length);

/* Fill with the defaults; NULL is a no-op. */
void pmt_load_options_init(pmt_load_options* options);
void pmt_translate_options_init(pmt_translate_options* options);

/* Loads a model file. options may be NULL (defaults). On success *out is a new handle. */
pmt_status pmt_load(const char* path, const pmt_load_options* options, pmt_translator** out);
/* Loads from a caller's buffer, not copied: 64-byte aligned, alive and unchanged until pmt_free. */
pmt_status pmt_load_buffer(const void* data, size_t size, const pmt_load_options* options,
                           pmt_translator** out);
/* Frees the handle (NULL is allowed). */
void pmt_free(pmt_translator* translator);

/* Translates `count` UTF-8 sentences. lengths may be NULL (NUL-terminated sentences);
 * options, on_token and user may be NULL. Per-sentence errors are in the results. */
pmt_status pmt_translate(pmt_translator* translator, const char* const* sentences,
                         const size_t* lengths, size_t count, const pmt_translate_options* options,
                         pmt_token_fn on_token, void* user);
/* The same from token ids (no EOS; the runtime appends it). Allocation-free. */
pmt_status pmt_translate_ids(pmt_translator* translator, const int32_t* const* sources,
                             const size_t* lengths, size_t count,
                             const pmt_translate_options* options, pmt_token_fn on_token,
                             void* user);
/* Text as people have it (see pocketmt/text_translator.h): each text is split into sentences,
 * translated in length-sorted batches and rebuilt with its own whitespace and line breaks; a
 * sentence too long for max_src_len is cut and translated in pieces. Fill with
 * pmt_text_options_init. */
typedef struct pmt_text_options {
  pmt_translate_options search;
  int32_t split;        /* 1 (default): split into sentences; 0: each text is one sentence */
  const char* language; /* ISO 639-1 source language for the abbreviations; NULL: "en" */
  int32_t fold_caps;    /* 1 (default): an ALL-CAPS sentence is translated in sentence case and
                           given back in capitals; 0: as it is */
} pmt_text_options;

/* One text of the last pmt_translate_text call; pointers valid until the next call. */
typedef struct pmt_text_result {
  pmt_status status;             /* PMT_OK, or why the text was rejected (e.g. invalid UTF-8) */
  const char* error;             /* "" when status == PMT_OK */
  const char* text;              /* NUL-terminated translation, "" when rejected */
  size_t text_length;            /* bytes, without the NUL */
  int32_t sentences;             /* sentences translated */
  int32_t cut_sentences;         /* too long for max_src_len, translated in pieces */
  int32_t incomplete_sentences;  /* stopped by the output length bound */
} pmt_text_result;

/* Streaming of pmt_translate_text: the next part (`text`, not NUL-terminated, valid during the
 * call only) of the translation of text `index`; with a callback, sentences go one at a time in
 * input order. */
typedef void (*pmt_text_fn)(void* user, int32_t index, const char* text, size_t text_length);

void pmt_text_options_init(pmt_text_options* options);
/* Translates `count` UTF-8 texts (any count; lengths may be NULL for NUL-terminated texts;
 * options, on_text and user may be NULL). Allocates. Per-text errors are in the results. */
pmt_status pmt_translate_text(pmt_translator* translator, const char* const* texts, const size_t* lengths,
                              size_t count, const pmt_text_options* options, pmt_text_fn on_text, void* user);
size_t pmt_text_result_count(const pmt_translator* translator);
pmt_status pmt_get_text_result(const pmt_translator* translator, size_t index, pmt_text_result* out);

/* Number of results of the last call and result `index` of it. */
size_t pmt_result_count(const pmt_translator* translator);
pmt_status pmt_get_result(const pmt_translator* translator, size_t index, pmt_result* out);

/* The model's vocabulary size and the arena size chosen at load. */
int32_t pmt_vocab_size(const pmt_translator* translator);
size_t pmt_arena_bytes(const pmt_translator* translator);

/* Message of the last failed call on this thread ("" if none). Valid until the next call. */
const char* pmt_last_error(void);
/* "ok", "invalid argument", ... */
const char* pmt_status_name(pmt_status status);
/* Library version, "major.minor.patch". */
const char* pmt_version(void);

#ifdef __cplusplus
}
#endif

#endif /* POCKETMT_PMT_H_ */
