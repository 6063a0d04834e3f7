// pmt-bench: latency and memory of a PocketMT model on this device, through the public C++ API
// (pocketmt/translator.h), in the spirit of llama-bench. For every model x threads it loads the
// model once, then for every beam x source length x generated length it translates random token
// ids (or the sentences of --input), batch 1, and reports:
//   load ms          Translator::load (map, verify, create XNNPACK operators, allocate the arena)
//   encoder ms       encoder + cross-attention keys/values. The API has no encoder-only call, so
//                    a greedy probe with max_len 2 measures t1 (first token) and t2 (end), and
//                    encoder = t1 - (t2 - t1): the first token's time less one warm decoder step.
//                    It thus includes the first step's extra cache misses (decoder weights not
//                    yet in cache), which a model larger than the caches shows (fp32 `small`)
//   first token ms   from the call to the first token event (the streaming callback)
//   ms/token         greedy: the gaps between consecutive token events, i.e. one decoder step
//                    plus argmax (median and p90 over every step of every repeat); beam: (call -
//                    encoder) / decoder steps per sentence (median and p90 over the repeats)
//   tokens/s         generated tokens / (call - encoder), median over the repeats
//   sentence ms      the whole call, median
//   peak RSS MB      the process's resident high-water mark since this model's load began
//                    (/proc/self/clear_refs resets it; elsewhere the process's peak so far)
// The runtime stops at EOS, so a sentence may produce fewer tokens than -n asks: the `gen`
// column shows what was produced. A randomly initialised model rarely emits EOS.
//
// File mode (--file FILE): throughput on a whole text, as `pmt-translate --input FILE` does it
// (pocketmt/text_translator.h: paragraphs split into sentences, sorted by length, batched). For
// every model x threads x batch x beam it loads the model with max_batch = batch, translates
// the file (-r passes, median) and reports sentences/s and target tokens/s. --no-split makes
// every line one sentence (`pmt-translate --no-split`), so that a peer that cannot split
// (bench/torch_translate_file.py) translates exactly the same sentences.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_report.h"
#include "pmt_cli.h"
#include "pocketmt/text_translator.h"
#include "pocketmt/translator.h"

namespace {

using pmt::bench::BenchRow;

// The clock every time is read from: wall time (CLOCK_MONOTONIC) by default; with --clock cpu
// the process's CPU time (all threads), which other processes' load does not inflate: the
// uncontended latency on a busy machine, meaningful with 1 thread (workers' spinning counts).
clockid_t g_clock = CLOCK_MONOTONIC;

double now_s() {
  timespec ts{};
  clock_gettime(g_clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Options {
  std::vector<std::string> models;
  std::vector<int> src_lens{32}, gen_lens{128}, beams{1}, threads{1}, batches{1, 4, 16, 32}, shortlists{1};
  int repeats = 5;
  bool repeats_given = false;
  int loads = 0;         // load mode: loads per model (--loads)
  std::string file;      // file mode
  bool split = true;     // file mode: TextOptions::split (--no-split)
  int no_repeat_ngram = 4;  // file mode: as pmt-translate
  std::string input;     // real sentences instead of random ids
  std::string output;    // the report's file; empty: stdout
  int max_src = 128;     // with --input: source limit set at load
  bool gen_given = false;
  bool cpu_clock = false;  // --clock cpu
  pmt::bench::Format format = pmt::bench::Format::kMarkdown;
  unsigned seed = 1;
};

// Returns -1 to go on with `o` filled, otherwise the exit code (0 after --help or --version,
// 2 after bad usage).
int parse_options(int argc, char** argv, Options* o) {
  CLI::App app(
      "Latency and memory of a PocketMT model, batch 1 (see the table's columns in docs/benchmarks.md),\n"
      "or with --file the throughput of translating a whole file, or with --loads where loading goes.\n"
      "LIST: comma-separated integers, e.g. 8,32,128.",
      "pmt-bench");
  pmt::cli::conventions(app, "pmt-bench");
  using pmt::cli::int_range;
  const auto list = [&](const char* names, std::vector<int>* values, int lo, int hi, const char* help) {
    return app.add_option(names, *values, help)->delimiter(',')->allow_extra_args(false)->type_name("LIST")->check(
        int_range(lo, hi));
  };
  app.add_option("-m,--model", o->models, "model file; repeat for several (default models/en-es.pmt)")
      ->allow_extra_args(false)
      ->type_name("FILE");
  list("-s,--src-len", &o->src_lens, 2, 100000, "source lengths in tokens, EOS included, of random ids (default 32)");
  CLI::Option* gen =
      list("-n,--gen-len", &o->gen_lens, 1, 100000, "output tokens, EOS included (the call's max_len; default 128)");
  list("-b,--beam", &o->beams, 1, 64, "beam sizes, 1 = greedy (default 1)");
  list("-t,--threads", &o->threads, 1, 256, "threads (default 1)");
  list("--shortlist", &o->shortlists, 0, 1,
       "1: the model's vocabulary shortlist where it has one, 0: every logit; 0,1 measures both (default 1)");
  CLI::Option* repeats = app.add_option("-r,--repeats", o->repeats,
                                        "timed sentences per configuration; medians over them (default 5; file mode: "
                                        "passes, default 1)")
                             ->type_name("N")
                             ->check(int_range(1, 1000000));
  app.add_option("-i,--input", o->input,
                 "real sentences, one per line, instead of random ids (-s is then ignored; without -n the runtime's "
                 "default max_len applies)")
      ->type_name("FILE");
  app.add_option("--max-src", o->max_src, "with --input: longest source (tokens with EOS) accepted (default 128)")
      ->type_name("N")
      ->check(int_range(2, 100000));
  app.add_option("-f,--file", o->file,
                 "file mode: throughput translating FILE as `pmt-translate --input` does (paragraphs, length-sorted "
                 "batches)")
      ->type_name("FILE");
  app.add_option("--loads", o->loads,
                 "load mode: load each model N times (batch 1, each -t) and report the medians of the load's stages "
                 "(Translator::load_times, wall clock) and the memory after the first load")
      ->type_name("N")
      ->check(int_range(1, 100000));
  list("--batch", &o->batches, 1, 4096, "file mode: sentences per batch (default 1,4,16,32)");
  app.add_flag(
      "--no-split", [o](int64_t) { o->split = false; },
      "file mode: each line is one sentence, never cut (a line longer than --max-src is rejected and counted), as "
      "`pmt-translate --no-split`");
  app.add_option("--no-repeat-ngram", o->no_repeat_ngram,
                 "file mode: repeated n-gram block (default 4, as pmt-translate; 0 off)")
      ->type_name("N")
      ->check(int_range(0, 100000));
  std::string format;
  app.add_option("--format", format, "the report's format: md, json or csv (default md)")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"md", "json", "csv"}).description(""));
  bool json = false;
  app.add_flag("--json", json, "the same as --format json");
  app.add_option("-o,--output", o->output, "write the report to FILE instead of stdout")->type_name("FILE");
  int seed = 1;
  app.add_option("--seed", seed, "random source ids (default 1)")->type_name("N")->check(int_range(0, 1 << 30));
  std::string clock = "wall";
  app.add_option("--clock", clock,
                 "wall time (default), or process CPU time: the uncontended latency on a busy machine (use with -t 1)")
      ->type_name("wall|cpu")
      ->check(CLI::IsMember({"wall", "cpu"}).description(""));
  if (const int rc = pmt::cli::parse(app, "pmt-bench", argc, argv, true); rc >= 0) return rc;

  o->gen_given = gen->count() > 0;
  o->repeats_given = repeats->count() > 0;
  o->seed = static_cast<unsigned>(seed);
  o->cpu_clock = clock == "cpu";
  if (format == "json" || json) o->format = pmt::bench::Format::kJson;
  else if (format == "csv") o->format = pmt::bench::Format::kCsv;
  if (o->models.empty()) o->models.emplace_back("models/en-es.pmt");
  if (!o->file.empty() && !o->repeats_given) o->repeats = 1;
  return -1;
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  return (v[mid] + *std::max_element(v.begin(), v.begin() + mid)) / 2;
}

// Nearest-rank percentile, p in (0, 100].
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100 * static_cast<double>(v.size())));
  return v[std::max<size_t>(rank, 1) - 1];
}

// Zeroes the kernel's resident high-water mark (VmHWM) where Linux allows it.
void reset_peak_rss() {
  if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

// A "Vm...: N kB" line of /proc/self/status in MB; -1 where there is none.
double proc_status_mb(const char* key) {
  long kb = -1;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    const std::string format = std::string(key) + ": %ld kB";
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, format.c_str(), &kb) == 1) break;
    std::fclose(f);
  }
  return kb < 0 ? -1 : static_cast<double>(kb) * 1024 / 1e6;
}

double peak_rss_mb() {
  if (const double mb = proc_status_mb("VmHWM"); mb >= 0) return mb;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
#if defined(__APPLE__)
  return static_cast<double>(ru.ru_maxrss) / 1e6;  // bytes there
#else
  return static_cast<double>(ru.ru_maxrss) * 1024 / 1e6;  // KiB on Linux and the BSDs
#endif
}

// Reports a failed load; the exit code: 1 where the machine lacks memory or a supported CPU, 2
// for a bad model file.
int load_failed(const std::string& path, const pmt::Status& s) {
  std::fprintf(stderr, "pmt-bench: %s: %s\n", path.c_str(), s.message());
  return s.code() == pmt::ErrorCode::kOutOfMemory || s.code() == pmt::ErrorCode::kBackend ? 1 : 2;
}

// The shortlist settings of o.shortlists worth measuring on `t` (one when the file has none),
// each with its report label.
std::vector<std::pair<bool, std::string>> shortlist_settings(const pmt::Translator& t, const std::vector<int>& asked) {
  std::vector<std::pair<bool, std::string>> out;
  for (const int on : asked) {
    if (!t.has_shortlist()) return {{false, "none"}};
    out.emplace_back(on != 0, on != 0 ? "on" : "off");
  }
  return out;
}

// One sentence to translate: token ids (random input) or text (--input).
struct Source {
  std::vector<int32_t> ids;
  std::string text;
  bool is_text = false;
};

// Times of one call: token events in seconds since the call began, and its end.
struct CallTimes {
  std::vector<double> events;  // capacity reserved before the call: the callback never allocates
  double end = 0;
  size_t generated = 0;
  bool complete = false;
};

struct EventSink {
  double start;
  CallTimes* times;
  static void on_token(void* user, const pmt::TokenEvent&) {
    auto* s = static_cast<EventSink*>(user);
    if (s->times->events.size() < s->times->events.capacity())
      s->times->events.push_back(now_s() - s->start);
  }
};

pmt::Status run_call(pmt::Translator& t, const Source& src, const pmt::TranslateOptions& options,
                     CallTimes* times) {
  times->events.clear();
  EventSink sink{now_s(), times};
  const pmt::TokenCallback cb{EventSink::on_token, &sink};
  pmt::Status s;
  if (src.is_text) {
    const std::string_view one[] = {src.text};
    s = t.translate(one, options, cb);
  } else {
    const std::span<const int32_t> one[] = {src.ids};
    s = t.translate_ids(one, options, cb);
  }
  times->end = now_s() - sink.start;
  if (!s.ok()) return s;
  const pmt::Translation& r = t.results()[0];
  if (!r.status.ok()) return r.status;
  times->generated = r.tokens.size();
  times->complete = r.complete;
  return {};
}

// Encoder time of `src` by the max_len-2 greedy probe (see the file comment); NAN when the
// model ends the sentence at once.
double probe_encoder(pmt::Translator& t, const Source& src, bool shortlist, CallTimes* scratch, pmt::Status* status) {
  pmt::TranslateOptions probe;
  probe.beam = 1;
  probe.max_len = 2;
  probe.shortlist = shortlist;
  *status = run_call(t, src, probe, scratch);
  if (!status->ok() || scratch->events.empty()) return NAN;
  return 2 * scratch->events[0] - scratch->end;
}

// Measures beam x max_len on `sources` (one call each) and fills the row's timings. Sentences
// the runtime rejects (too long for --max-src, invalid UTF-8) are skipped and counted.
pmt::Status measure(pmt::Translator& t, const std::vector<Source>& sources, int beam, bool shortlist, int max_len,
                    BenchRow* row, size_t* skipped) {
  pmt::TranslateOptions options;
  options.beam = beam;
  options.max_len = max_len;
  options.shortlist = shortlist;
  CallTimes times;
  times.events.reserve(static_cast<size_t>(t.limits().max_tgt_len) + 1);
  pmt::Status s;
  const auto rejected = [&s] {
    return s.code() == pmt::ErrorCode::kLimitExceeded || s.code() == pmt::ErrorCode::kInvalidUtf8;
  };
  *skipped = 0;

  std::vector<double> enc, first, step, per_call_token, rate, sentence, src_tokens, generated;
  std::vector<std::vector<double>> by_position;
  bool warm = false;
  for (const Source& src : sources) {
    if (!warm && (s = run_call(t, src, options, &times)).ok()) warm = true;  // caches, thread pool
    const double e = probe_encoder(t, src, shortlist, &times, &s);
    if (s.ok()) s = run_call(t, src, options, &times);
    if (!s.ok() && src.is_text && rejected()) {
      ++*skipped;
      continue;
    }
    if (!s.ok()) return s;
    sentence.push_back(times.end);
    generated.push_back(static_cast<double>(times.generated));
    src_tokens.push_back(static_cast<double>(t.results()[0].source_tokens));
    if (!times.events.empty()) first.push_back(times.events[0]);
    if (std::isnan(e)) continue;
    enc.push_back(e);
    const double steps = static_cast<double>(times.generated + (times.complete ? 1 : 0));
    if (steps > 0) {
      per_call_token.push_back((times.end - e) / steps);
      rate.push_back(static_cast<double>(times.generated) / (times.end - e));
    }
    if (beam != 1) continue;
    // Position 1's step is hidden in the first token's time with the encoder: left unknown.
    if (by_position.size() < times.events.size()) by_position.resize(times.events.size());
    for (size_t k = 1; k < times.events.size(); ++k) {
      step.push_back(times.events[k] - times.events[k - 1]);
      by_position[k].push_back(step.back());
    }
  }
  const auto ms = [](double s) { return s * 1e3; };
  const std::vector<double>& token = beam == 1 && !step.empty() ? step : per_call_token;
  row->src_len = median(src_tokens);
  row->generated = 0;
  for (const double g : generated) row->generated += g / static_cast<double>(generated.size());
  row->encoder_ms = ms(median(enc));
  row->first_token_ms = ms(median(first));
  row->token_ms_median = ms(median(token));
  row->token_ms_p90 = ms(percentile(token, 90));
  row->tokens_per_s = median(rate);
  row->sentence_ms = ms(median(sentence));
  row->per_step_ms.clear();
  for (const auto& at : by_position) row->per_step_ms.push_back(ms(median(at)));
  return {};
}

// --input: one Source per non-empty line.
bool read_sentences(const std::string& path, std::vector<Source>* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    Source s;
    s.text = line;
    s.is_text = true;
    out->push_back(std::move(s));
  }
  return true;
}

std::vector<Source> random_sources(int count, int src_len, int32_t vocab, std::mt19937* rng) {
  // Ids from 4 up: pad, unk, bos and eos (0..3) do not occur inside a source sentence.
  std::uniform_int_distribution<int32_t> id(4, vocab - 1);
  std::vector<Source> out(static_cast<size_t>(count));
  for (Source& s : out) {
    s.ids.resize(static_cast<size_t>(src_len - 1));  // the runtime appends EOS
    for (int32_t& v : s.ids) v = id(*rng);
  }
  return out;
}

// File mode: see the file comment.
int run_file(const Options& o) {
  std::ifstream in(o.file);
  if (!in) {
    std::fprintf(stderr, "pmt-bench: cannot read %s\n", o.file.c_str());
    return 2;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  if (in.bad() || lines.empty()) {
    std::fprintf(stderr, "pmt-bench: %s: %s\n", o.file.c_str(), in.bad() ? "read error" : "no line");
    return 2;
  }
  const std::vector<std::string_view> texts(lines.begin(), lines.end());
  std::vector<pmt::bench::FileRow> rows;
  for (const std::string& path : o.models)
    for (const int threads : o.threads)
      for (const int batch : o.batches) {
        pmt::LoadOptions load;
        load.max_batch = batch;
        load.max_src_len = o.max_src;
        load.max_beam = *std::max_element(o.beams.begin(), o.beams.end());
        load.threads = threads;
        reset_peak_rss();
        std::unique_ptr<pmt::Translator> t;
        const double t0 = now_s();
        if (const pmt::Status s = pmt::Translator::load(path, load, &t); !s.ok()) return load_failed(path, s);
        const double load_ms = (now_s() - t0) * 1e3;
        pmt::TextTranslator text(*t);
        for (const int beam : o.beams)
          for (const auto& [shortlist, label] : shortlist_settings(*t, o.shortlists)) {
          std::fprintf(stderr, "pmt-bench: %s, %d thread(s), batch %d, beam %d, shortlist %s, %zu lines ...\n",
                       path.c_str(), threads, batch, beam, label.c_str(), lines.size());
          pmt::bench::FileRow row;
          row.model = path;
          row.precision = t->quantized() ? "int8" : "fp32";
          row.input = o.file;
          row.threads = threads;
          row.batch = batch;
          row.beam = beam;
          row.shortlist = label;
          row.lines = lines.size();
          row.load_ms = load_ms;
          row.arena_mb = static_cast<double>(t->arena_bytes()) / 1e6;
          pmt::TextOptions options;
          options.search.beam = beam;
          options.search.no_repeat_ngram = o.no_repeat_ngram;
          options.search.shortlist = shortlist;
          options.split = o.split;
          std::vector<double> seconds;
          for (int pass = 0; pass < o.repeats; ++pass) {
            const double start = now_s();
            if (const pmt::Status s = text.translate(texts, options); !s.ok()) {
              std::fprintf(stderr, "pmt-bench: %s\n", s.message());
              return 2;
            }
            seconds.push_back(now_s() - start);
          }
          row.seconds = median(seconds);
          size_t rejected = 0;
          for (const pmt::TextResult& r : text.results()) {
            rejected += r.status.ok() ? 0 : 1;
            row.sentences += static_cast<size_t>(r.sentences);
            row.source_tokens += r.source_tokens;
            row.target_tokens += r.target_tokens;
          }
          // Counted, not fatal, as `pmt-translate` leaves such a line empty; they lower sentences/s.
          if (rejected > 0)
            std::fprintf(stderr, "pmt-bench: %zu of %zu lines rejected (invalid UTF-8, or too long unsplit)\n",
                         rejected, lines.size());
          row.peak_rss_mb = peak_rss_mb();
          rows.push_back(std::move(row));
        }
      }
  pmt::bench::write_rows(stdout, o.format, rows);
  return 0;
}

int run_loads(const Options& o) {
  std::vector<pmt::bench::LoadRow> rows;
  for (const std::string& path : o.models)
    for (const int threads : o.threads) {
      std::fprintf(stderr, "pmt-bench: %s, %d thread(s), %d loads ...\n", path.c_str(), threads, o.loads);
      pmt::bench::LoadRow row;
      row.model = path;
      row.threads = threads;
      row.loads = o.loads;
      std::vector<double> file, tokenizer, operators, arena, total;
      reset_peak_rss();
      for (int i = 0; i < o.loads; ++i) {
        pmt::LoadOptions load;
        load.threads = threads;
        std::unique_ptr<pmt::Translator> t;
        if (const pmt::Status s = pmt::Translator::load(path, load, &t); !s.ok()) return load_failed(path, s);
        if (i == 0) {
          row.precision = t->quantized() ? "int8" : "fp32";
          const double rss = proc_status_mb("VmRSS");
          row.rss_mb = rss < 0 ? NAN : rss;
          row.peak_rss_mb = peak_rss_mb();
        }
        const pmt::LoadTimes& lt = t->load_times();
        file.push_back(lt.file_ms);
        tokenizer.push_back(lt.tokenizer_ms);
        operators.push_back(lt.operators_ms);
        arena.push_back(lt.arena_ms);
        total.push_back(lt.total_ms);
      }
      row.file_ms = median(file);
      row.tokenizer_ms = median(tokenizer);
      row.operators_ms = median(operators);
      row.arena_ms = median(arena);
      row.total_ms = median(total);
      rows.push_back(std::move(row));
    }
  pmt::bench::write_rows(stdout, o.format, rows);
  return 0;
}

int run(const Options& o) {
  if (o.cpu_clock) g_clock = CLOCK_PROCESS_CPUTIME_ID;
  if (o.loads > 0) return run_loads(o);
  if (!o.file.empty()) return run_file(o);
  std::vector<Source> sentences;
  if (!o.input.empty()) {
    if (!read_sentences(o.input, &sentences)) {
      std::fprintf(stderr, "pmt-bench: cannot read %s\n", o.input.c_str());
      return 2;
    }
    if (sentences.empty()) {
      std::fprintf(stderr, "pmt-bench: %s holds no sentence\n", o.input.c_str());
      return 2;
    }
  }
  const std::vector<int> gen_lens = !o.input.empty() && !o.gen_given ? std::vector<int>{0} : o.gen_lens;
  std::mt19937 rng(o.seed);
  std::vector<BenchRow> rows;
  for (const std::string& path : o.models) {
    std::error_code ec;
    const auto file_bytes = std::filesystem::file_size(path, ec);
    for (const int threads : o.threads) {
      pmt::LoadOptions load;
      load.max_batch = 1;
      load.max_src_len = o.input.empty() ? *std::max_element(o.src_lens.begin(), o.src_lens.end()) : o.max_src;
      load.max_tgt_len = *std::max_element(gen_lens.begin(), gen_lens.end());
      load.max_beam = *std::max_element(o.beams.begin(), o.beams.end());
      load.threads = threads;
      reset_peak_rss();
      std::unique_ptr<pmt::Translator> t;
      const double t0 = now_s();
      const pmt::Status s = pmt::Translator::load(path, load, &t);
      const double load_ms = (now_s() - t0) * 1e3;
      if (!s.ok()) return load_failed(path, s);
      for (const int beam : o.beams)
        for (const auto& [shortlist, label] : shortlist_settings(*t, o.shortlists)) {
        for (const int src_len : o.input.empty() ? o.src_lens : std::vector<int>{0}) {
          const std::vector<Source> sources =
              o.input.empty() ? random_sources(o.repeats, src_len, t->config().vocab_size, &rng) : sentences;
          for (const int gen : gen_lens) {
            BenchRow row;
            row.model = path;
            row.precision = t->quantized() ? "int8" : "fp32";
            row.model_mb = ec ? 0 : static_cast<double>(file_bytes) / 1e6;
            row.input = o.input.empty() ? "random" : o.input;
            row.clock = o.cpu_clock ? "cpu" : "wall";
            row.threads = threads;
            row.beam = beam;
            row.shortlist = label;
            row.gen_len = gen;
            row.load_ms = load_ms;
            std::fprintf(stderr, "pmt-bench: %s, %d thread(s), beam %d, source %s, max_len %d ...\n", path.c_str(),
                         threads, beam, o.input.empty() ? std::to_string(src_len).c_str() : o.input.c_str(), gen);
            size_t skipped = 0;
            const pmt::Status m = measure(*t, sources, beam, shortlist, gen, &row, &skipped);
            if (skipped > 0)
              std::fprintf(stderr, "pmt-bench: skipped %zu of %zu sentences the model rejected\n", skipped,
                           sources.size());
            if (!m.ok()) {
              std::fprintf(stderr, "pmt-bench: %s: %s\n", path.c_str(), m.message());
              return m.code() == pmt::ErrorCode::kLimitExceeded || m.code() == pmt::ErrorCode::kInvalidArgument
                         ? 2
                         : 1;
            }
            row.peak_rss_mb = peak_rss_mb();
            rows.push_back(std::move(row));
          }
        }
      }
    }
  }
  pmt::bench::write_rows(stdout, o.format, rows);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int rc = parse_options(argc, argv, &o);
  if (rc > 0) return rc;      // bad usage
  if (rc < 0 && !o.output.empty() && std::freopen(o.output.c_str(), "w", stdout) == nullptr) {
    std::fprintf(stderr, "pmt-bench: cannot write %s: %s\n", o.output.c_str(), std::strerror(errno));
    return 1;
  }
  if (rc < 0) rc = run(o);    // else --help or --version was printed
  // A report lost to a full disk or a closed pipe is a failed run; fclose flushes the rest.
  const bool write_failed = std::ferror(stdout) != 0;
  if (std::fclose(stdout) != 0 || write_failed) {
    std::fprintf(stderr, "pmt-bench: cannot write the report: %s\n", std::strerror(errno));
    return rc != 0 ? rc : 1;
  }
  return rc;
}
