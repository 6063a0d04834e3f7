// bench_text_call: the C++ side of bench/python_overhead.py. Times TextTranslator::translate
// (what pocketmt.Translator.translate calls) on the first B lines of a file, as the Python
// package would, and prints the median per call as one JSON line.
//
//   bench_text_call MODEL LINES_FILE BATCH REPEATS [--empty]
//
// Load options and search options are the Python package's defaults (max_batch 4, beam 4,
// alpha 0.6, no_repeat_ngram 4, 1 thread). --empty translates B empty texts instead, which run
// no model at all: the fixed cost of a call. Time is the process's CPU time
// (CLOCK_PROCESS_CPUTIME_ID), which another process's load does not inflate.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/text_translator.h"
#include "pocketmt/translator.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5 || (argc == 6 && std::strcmp(argv[5], "--empty") != 0) || argc > 6) {
    std::fprintf(stderr, "usage: bench_text_call MODEL LINES_FILE BATCH REPEATS [--empty]\n");
    return 2;
  }
  const int batch = std::atoi(argv[3]), repeats = std::atoi(argv[4]);
  const bool empty = argc == 6;
  std::vector<std::string> lines;
  std::ifstream in(argv[2]);
  for (std::string line; static_cast<int>(lines.size()) < batch && std::getline(in, line);)
    lines.push_back(empty ? std::string() : line);
  if (batch < 1 || repeats < 1 || static_cast<int>(lines.size()) < batch) {
    std::fprintf(stderr, "bench_text_call: need BATCH >= 1 lines in %s and REPEATS >= 1\n", argv[2]);
    return 2;
  }
  std::unique_ptr<pmt::Translator> translator;
  if (pmt::Status s = pmt::Translator::load(argv[1], {.max_batch = 4}, &translator); !s.ok()) {
    std::fprintf(stderr, "bench_text_call: %s\n", s.message());
    return 2;
  }
  pmt::TextTranslator text(*translator);
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  const pmt::TextOptions options{.search = {.no_repeat_ngram = 4}};
  std::vector<double> seconds;
  for (int r = 0; r <= repeats; ++r) {  // the first call warms caches and buffers: not timed
    const double start = cpu_seconds();
    if (pmt::Status s = text.translate(views, options); !s.ok()) {
      std::fprintf(stderr, "bench_text_call: %s\n", s.message());
      return 2;
    }
    if (r > 0) seconds.push_back(cpu_seconds() - start);
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  const nlohmann::ordered_json line = {
      {"batch", batch}, {"repeats", repeats}, {"empty", empty}, {"median_s", seconds[seconds.size() / 2]}};
  std::printf("%s\n", line.dump().c_str());
  return 0;
}
