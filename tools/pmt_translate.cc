// pmt-translate: one translation per input line, in input order.
//
//   pmt-translate --model models/en-es.pmt < input.en > output.es
//   pmt-translate --input document.txt > document.es.txt
//
// Reads UTF-8 text from stdin (or --input) and writes exactly one line per input line. Each line
// is a paragraph: split into sentences, translated, and put back with its own whitespace; blank
// lines stay blank. A sentence too long for the model is cut and translated in pieces (a warning
// on stderr). The input is read in chunks of up to 1,024 lines or 2 MB, whose sentences are
// sorted by length and translated in batches of --batch, so memory stays bounded on any input.
// A line that cannot be translated (invalid UTF-8; with --no-split, too long) gives an empty line
// and a message on stderr. Exit status: 0 all lines translated, 2 bad option or model, or some
// line rejected, 1 the input could not be read or the output not written (a full disk, a closed
// pipe).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "pmt_cli.h"
#include "pmt_progress.h"
#include "pocketmt/text_translator.h"
#include "pocketmt/translator.h"

namespace {

struct Args {
  std::string model, input, output, language = "en";
  pmt::LoadOptions load{.max_batch = 4};
  pmt::TranslateOptions translate{.no_repeat_ngram = 4};
  bool stream = false, split = true, fold_caps = true, quiet = false;
};

// Without --model: models/en-es.pmt under the working directory (a source checkout), else the
// default model installed beside this program (<prefix>/share/pocketmt/en-es.pmt).
std::string default_model() {
  const std::string local = "models/en-es.pmt";
  if (::access(local.c_str(), F_OK) == 0) return local;
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return local;
  std::string installed(exe, static_cast<size_t>(n));
  installed = installed.substr(0, installed.rfind('/') + 1) + PMT_BINDIR_TO_MODEL;
  return ::access(installed.c_str(), F_OK) == 0 ? installed : local;
}

// Returns -1 to go on, otherwise the exit code (0 after --help or --version, 2 on bad usage).
int parse_args(int argc, char** argv, Args* a) {
  CLI::App app(
      "Translates UTF-8 text, one output line per input line, in order. Each line is a paragraph:\n"
      "split into sentences, translated, and put back with its own spacing; blank lines stay blank.\n"
      "Exit status: 0 all lines translated, 2 bad option or model, or some line rejected (an empty\n"
      "line and a message), 1 the input could not be read or the output not written.",
      "pmt-translate");
  pmt::cli::conventions(app, "pmt-translate");
  const CLI::Validator positive = pmt::cli::int_range(1, std::numeric_limits<int32_t>::max());
  app.add_option("-m,--model", a->model, "the .pmt model (default models/en-es.pmt, else the installed one)")
      ->type_name("FILE");
  app.add_option("-i,--input", a->input, "read the text from FILE instead of stdin")->type_name("FILE");
  app.add_option("--output", a->output, "write the translations to FILE instead of stdout")->type_name("FILE");
  app.add_option("-b,--beam", a->translate.beam, "beam size, 1 = greedy (default 4)")->type_name("K")->check(positive);
  app.add_option("--alpha", a->translate.alpha,
                 "length penalty exponent (default: the model's own, 0.6 where the file has none)")
      ->type_name("A")
      ->check(pmt::cli::real_range(0, 1e30));
  app.add_option("--letter-penalty", a->translate.letter_penalty,
                 "subtract P from the log-probability of every one-letter piece inside a word, against spelling "
                 "unknown words letter by letter; above 0 no piece inside a word makes three of one letter in a row "
                 "and no syllable or word comes a third time in a row; "
                 "0 = off (default: the model's own, 0 where it has none)")
      ->type_name("P")
      ->check(pmt::cli::real_range(0, 100));
  app.add_option("-t,--threads", a->load.threads, "threads (default 1)")->type_name("N")->check(positive);
  app.add_option("--batch", a->load.max_batch, "sentences translated together (default 4)")->type_name("B")->check(positive);
  app.add_flag("--no-split", [a](int64_t) { a->split = false; },
               "each line is one sentence, never cut (lines longer than --max-src-len are reported and left empty)");
  app.add_flag("--keep-caps", [a](int64_t) { a->fold_caps = false; },
               "translate ALL-CAPS sentences as they are (default: in sentence case, the translation in capitals)");
  app.add_option("--lang", a->language, "source language of the abbreviations the sentence splitter knows: en (default) or es")
      ->type_name("CODE")
      ->check(CLI::IsMember({"en", "es"}).description(""));
  app.add_option("--max-len", a->translate.max_len,
                 "most output tokens per sentence, EOS included (default: 2 x source tokens + 10, see --max-len-ratio)")
      ->type_name("L")
      ->check(positive);
  app.add_option("--max-len-ratio", a->translate.max_len_ratio,
                 "output bound relative to the source: R x source tokens + 10 (default 2)")
      ->type_name("R")
      ->check(pmt::cli::real_range(0, 100));
  app.add_option("--max-src-len", a->load.max_src_len,
                 "most source tokens per sentence, EOS included (default: 128 or the model's limit if lower); longer "
                 "sentences are cut at clause punctuation, then every S - 1 tokens")
      ->type_name("S")
      ->check(pmt::cli::int_range(2, std::numeric_limits<int32_t>::max()));
  app.add_option("--no-repeat-ngram", a->translate.no_repeat_ngram,
                 "never output the same N tokens twice in a line (N-grams with digits exempt); 0 = off (default 4)")
      ->type_name("N")
      ->check(pmt::cli::int_range(0, std::numeric_limits<int32_t>::max()));
  app.add_flag(
      "--no-shortlist", [a](int64_t) { a->translate.shortlist = false; },
      "score every vocabulary token, not only the model's shortlist of candidates (where the model has one)");
  app.add_flag(
      "--no-copy-numbers", [a](int64_t) { a->translate.copy_numbers = false; },
      "let the model write digits freely instead of copying the source's numbers");
  app.add_flag("--stream", a->stream, "write each token as soon as it is final (forces --batch 1)");
  app.add_flag("-q,--quiet", a->quiet, "no progress on stderr");
  if (const int rc = pmt::cli::parse(app, "pmt-translate", argc, argv, true); rc >= 0) return rc;
  if (a->model.empty()) a->model = default_model();
  a->load.max_beam = a->translate.beam;
  if (a->translate.max_len > 0) a->load.max_tgt_len = a->translate.max_len;
  if (a->stream) a->load.max_batch = 1;
  return -1;
}

// Writes one line per text of the chunk (the translation, or an empty line for a rejected text)
// and reports on stderr what was rejected or cut; false if any text was rejected.
bool write_chunk(const pmt::TextTranslator& t, size_t first_line, bool streamed, int32_t max_src_len) {
  bool all_ok = true;
  for (size_t i = 0; i < t.results().size(); ++i) {
    const pmt::TextResult& r = t.results()[i];
    if (!r.status.ok()) {
      std::fprintf(stderr, "pmt-translate: line %zu: %s\n", first_line + i, r.status.message());
      all_ok = false;
    } else if (r.cut_sentences > 0) {
      std::fprintf(stderr,
                   "pmt-translate: warning: line %zu: %d sentence(s) longer than %d tokens translated in pieces\n",
                   first_line + i, r.cut_sentences, max_src_len);
    }
    if (!streamed) std::fwrite(r.text.data(), 1, r.text.size(), stdout);
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
    std::fprintf(stderr, "pmt-translate: cannot write the output%s%s\n", errno ? ": " : "", errno ? std::strerror(errno) : "");
    return 1;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (int rc = parse_args(argc, argv, &args); rc >= 0) return rc == 0 ? close_stdout(0) : rc;
  if (!args.output.empty() && !std::freopen(args.output.c_str(), "w", stdout)) {
    std::fprintf(stderr, "pmt-translate: cannot write %s: %s\n", args.output.c_str(), std::strerror(errno));
    return 2;
  }

  std::ifstream file;
  if (!args.input.empty()) {
    // A directory opens, then reads as an empty file: no output and no message without this.
    struct stat st;
    if (::stat(args.input.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::fprintf(stderr, "pmt-translate: %s is a directory\n", args.input.c_str());
      return 2;
    }
    file.open(args.input);
    if (!file) {
      std::fprintf(stderr, "pmt-translate: cannot open %s: %s\n", args.input.c_str(), std::strerror(errno));
      return 2;
    }
  }
  std::istream& in = args.input.empty() ? std::cin : file;

  std::unique_ptr<pmt::Translator> translator;
  if (pmt::Status s = pmt::Translator::load(args.model, args.load, &translator); !s.ok()) {
    std::fprintf(stderr, "pmt-translate: %s\n", s.message());
    return 2;
  }
  if (translator->limits().threads < args.load.threads)
    std::fprintf(stderr, "pmt-translate: warning: %d threads asked for, %d CPUs available: using %d\n",
                 args.load.threads, translator->limits().threads, translator->limits().threads);

  pmt::TextTranslator text(*translator);
  const pmt::TextOptions options{args.translate, args.split, args.language, args.fold_caps};
  pmt::TextCallback on_text;
  if (args.stream) {
    on_text.fn = [](void*, const pmt::TextEvent& e) {
      std::fwrite(e.text.data(), 1, e.text.size(), stdout);
      std::fflush(stdout);
    };
  }

  // Chunks bound the memory whatever the input (the chunk's text, sentences and translations);
  // sorting happens within a chunk, and 1,024 lines sort well enough for batches of any size. A
  // stream reader wants each line as soon as it is typed.
  const size_t chunk_lines = args.stream ? 1 : 1024, chunk_bytes = size_t{2} << 20;
  struct stat input_stat;
  const bool regular_input = !args.input.empty() && ::stat(args.input.c_str(), &input_stat) == 0 && S_ISREG(input_stat.st_mode);
  // The share of the input read when it is a file (MB), else the lines so far; sentences/s beside.
  pmt::cli::Progress progress("pmt-translate", regular_input ? static_cast<double>(input_stat.st_size) / 1e6 : 0,
                              regular_input ? "MB" : "lines", args.quiet || args.stream);
  std::vector<std::string> lines;
  std::vector<std::string_view> views;
  bool all_ok = true;
  size_t line_no = 1, bytes_read = 0, sentences = 0;
  for (bool more = true; more;) {
    lines.clear();
    size_t bytes = 0;
    std::string line;
    while (lines.size() < chunk_lines && bytes < chunk_bytes && (more = static_cast<bool>(std::getline(in, line)))) {
      bytes += line.size() + 1;
      lines.push_back(std::move(line));
    }
    if (lines.empty()) break;
    views.assign(lines.begin(), lines.end());
    if (pmt::Status s = text.translate(views, options, on_text); !s.ok()) {
      std::fprintf(stderr, "pmt-translate: %s\n", s.message());
      return 2;
    }
    all_ok = write_chunk(text, line_no, args.stream, translator->limits().max_src_len) && all_ok;
    line_no += lines.size();
    bytes_read += bytes;
    for (const pmt::TextResult& r : text.results()) sentences += r.sentences;
    progress.update(regular_input ? static_cast<double>(bytes_read) / 1e6 : static_cast<double>(line_no - 1),
                    std::to_string(line_no - 1) + " lines, " + std::to_string(sentences) + " sentences");
    // A failed write (a full disk, a closed pipe) stops the run rather than translating into it.
    if (std::ferror(stdout)) break;
  }
  progress.finish();
  if (in.bad()) {
    std::fprintf(stderr, "pmt-translate: error reading %s\n", args.input.empty() ? "stdin" : args.input.c_str());
    return 1;
  }
  return close_stdout(all_ok ? 0 : 2);
}
