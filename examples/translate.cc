// translate: one translation per input line, in input order.
//
//   translate --model models/en-es.pmt < input.en > output.es
//
// Reads UTF-8 lines from stdin (or --input), translates them in batches of --batch lines and
// writes exactly one line per input line: an empty line for an empty one, and an empty line plus
// a message on stderr for a line that cannot be translated (too long for the limits, invalid
// UTF-8). Exit status: 0 all lines translated, 2 bad option or model, or some line rejected,
// 1 the input could not be read or the output not written (a full disk, a closed pipe).
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include "pocketmt/translator.h"

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: translate [--model FILE] [options] [< input]\n"
               "  --model FILE       the .pmt model (default models/en-es.pmt)\n"
               "  --input FILE       read sentences from FILE instead of stdin\n"
               "  --beam K           beam size, 1 = greedy (default 4)\n"
               "  --alpha A          length penalty exponent (default 0.6)\n"
               "  --threads N        threads (default 1)\n"
               "  --batch B          lines translated together (default 1)\n"
               "  --max-len L        most output tokens per line, EOS included\n"
               "                     (default: source tokens + 50)\n"
               "  --max-src-len S    most source tokens per line, EOS included\n"
               "                     (default: 128 or the model's limit if lower);\n"
               "                     longer lines are reported and left empty\n"
               "  --no-repeat-ngram N  never output the same N tokens twice in a line (N-grams\n"
               "                     with digits exempt); 0 = off (default 4)\n"
               "  --int8-passes P    int8 models: 2 = each Linear's input in two passes, closer\n"
               "                     to fp32 (default); 1 = one pass, faster\n"
               "  --stream           write each token as soon as it is final (forces --batch 1)\n");
}

bool parse_int(const char* s, int32_t lo, int32_t* out) {
  const char* end = s + std::strlen(s);
  auto [p, ec] = std::from_chars(s, end, *out);
  return ec == std::errc() && p == end && *out >= lo;
}

bool parse_float(const char* s, float* out) {
  const char* end = s + std::strlen(s);
  auto [p, ec] = std::from_chars(s, end, *out);
  return ec == std::errc() && p == end && *out >= 0.f;
}

struct Args {
  std::string model, input;
  pmt::LoadOptions load;
  pmt::TranslateOptions translate{.no_repeat_ngram = 4};
  bool stream = false;
};

// Returns 0 to go on, otherwise the exit code (after printing why).
int parse_args(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view opt = argv[i];
    if (opt == "--help" || opt == "-h") {
      usage(stdout);
      return -1;
    }
    if (opt == "--stream") {
      a->stream = true;
      continue;
    }
    static constexpr std::string_view kValued[] = {"--model",   "--input", "--beam",    "--alpha",
                                                   "--threads", "--batch", "--max-len", "--max-src-len",
                                                   "--int8-passes", "--no-repeat-ngram"};
    if (std::find(std::begin(kValued), std::end(kValued), opt) == std::end(kValued)) {
      std::fprintf(stderr, "translate: unknown option %s\n", argv[i]);
      usage(stderr);
      return 2;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "translate: %s needs a value\n", argv[i]);
      return 2;
    }
    const char* v = argv[++i];
    bool ok = true;
    if (opt == "--model") a->model = v;
    else if (opt == "--input") a->input = v;
    else if (opt == "--beam") ok = parse_int(v, 1, &a->translate.beam);
    else if (opt == "--alpha") ok = parse_float(v, &a->translate.alpha);
    else if (opt == "--threads") ok = parse_int(v, 1, &a->load.threads);
    else if (opt == "--batch") ok = parse_int(v, 1, &a->load.max_batch);
    else if (opt == "--max-len") ok = parse_int(v, 1, &a->translate.max_len);
    else if (opt == "--int8-passes") ok = parse_int(v, 1, &a->load.int8_passes);
    else if (opt == "--no-repeat-ngram") ok = parse_int(v, 0, &a->translate.no_repeat_ngram);
    else ok = parse_int(v, 2, &a->load.max_src_len);  // --max-src-len
    if (!ok) {
      std::fprintf(stderr, "translate: bad value '%s' for %s\n", v, argv[i - 1]);
      return 2;
    }
  }
  if (a->model.empty()) a->model = "models/en-es.pmt";
  a->load.max_beam = a->translate.beam;
  if (a->translate.max_len > 0) a->load.max_tgt_len = a->translate.max_len;
  if (a->stream) a->load.max_batch = 1;
  return 0;
}

// Writes the batch's translations (or empty lines for rejected ones); false if any was rejected.
bool write_batch(const pmt::Translator& t, size_t first_line, bool streamed) {
  bool all_ok = true;
  for (size_t i = 0; i < t.results().size(); ++i) {
    const pmt::Translation& r = t.results()[i];
    if (!r.status.ok()) {
      std::fprintf(stderr, "translate: line %zu: %s\n", first_line + i, r.status.message());
      all_ok = false;
    }
    if (!streamed || !r.status.ok()) std::fwrite(r.text.data(), 1, r.text.size(), stdout);
    std::fputc('\n', stdout);
  }
  return all_ok;
}

// Closes stdout (fclose flushes what is buffered: only then is every line known to be written)
// and returns rc, or 1 with a message when any output was lost (a full disk, a closed pipe).
int close_stdout(int rc) {
  const bool write_failed = std::ferror(stdout) != 0;  // errno still tells why: nothing ran since
  if (!write_failed) errno = 0;
  if (std::fclose(stdout) != 0 || write_failed) {
    std::fprintf(stderr, "translate: cannot write the output%s%s\n", errno ? ": " : "", errno ? std::strerror(errno) : "");
    return 1;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (int rc = parse_args(argc, argv, &args); rc != 0) return rc < 0 ? close_stdout(0) : rc;

  std::ifstream file;
  if (!args.input.empty()) {
    // A directory opens, then reads as an empty file: no output and no message without this.
    struct stat st;
    if (::stat(args.input.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::fprintf(stderr, "translate: %s is a directory\n", args.input.c_str());
      return 2;
    }
    file.open(args.input);
    if (!file) {
      std::fprintf(stderr, "translate: cannot open %s: %s\n", args.input.c_str(), std::strerror(errno));
      return 2;
    }
  }
  std::istream& in = args.input.empty() ? std::cin : file;

  std::unique_ptr<pmt::Translator> translator;
  if (pmt::Status s = pmt::Translator::load(args.model, args.load, &translator); !s.ok()) {
    std::fprintf(stderr, "translate: %s\n", s.message());
    return 2;
  }
  if (translator->limits().threads < args.load.threads)
    std::fprintf(stderr, "translate: warning: %d threads asked for, %d CPUs available: using %d\n",
                 args.load.threads, translator->limits().threads, translator->limits().threads);

  pmt::TokenCallback on_token;
  if (args.stream) {
    on_token.fn = [](void*, const pmt::TokenEvent& e) {
      std::fwrite(e.text.data(), 1, e.text.size(), stdout);
      std::fflush(stdout);
    };
  }

  const size_t batch = args.load.max_batch;
  std::vector<std::string> lines(batch);
  std::vector<std::string_view> views(batch);
  bool all_ok = true;
  size_t line_no = 1;
  for (bool more = true; more;) {
    size_t n = 0;
    while (n < batch && (more = static_cast<bool>(std::getline(in, lines[n])))) {
      if (!lines[n].empty() && lines[n].back() == '\r') lines[n].pop_back();
      views[n] = lines[n];
      ++n;
    }
    if (n == 0) break;
    if (pmt::Status s = translator->translate({views.data(), n}, args.translate, on_token); !s.ok()) {
      std::fprintf(stderr, "translate: %s\n", s.message());
      return 2;
    }
    all_ok = write_batch(*translator, line_no, args.stream) && all_ok;
    line_no += n;
    // A failed write (a full disk, a closed pipe) stops the run rather than translating into it.
    if (std::ferror(stdout)) break;
  }
  if (in.bad()) {
    std::fprintf(stderr, "translate: error reading %s\n", args.input.empty() ? "stdin" : args.input.c_str());
    return 1;
  }
  return close_stdout(all_ok ? 0 : 2);
}
