// pmt-bench's results: one row per measured configuration, written as a markdown table, JSON or
// CSV. Times in milliseconds, sizes in MB (10^6 bytes).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace pmt::bench {

struct BenchRow {
  std::string model;      // path as given
  std::string precision;  // "int8" or "fp32"
  double model_mb = 0;    // file size
  std::string input;      // "random" or the --input file
  std::string clock;      // "wall" or "cpu" (process CPU time)
  int threads = 1;
  int beam = 1;
  std::string shortlist = "none";  // "on", "off", or "none" when the file has no shortlist
  double src_len = 0;        // source tokens with EOS (a mean for real input)
  int gen_len = 0;           // the max_len asked for (0: the runtime's default)
  double generated = 0;      // output tokens actually produced, mean per sentence
  double load_ms = 0;        // Translator::load
  double encoder_ms = 0;     // encoder + cross-attention K/V (estimated, see pmt_bench.cc)
  double first_token_ms = 0; // call start -> first token event
  double token_ms_median = 0, token_ms_p90 = 0;  // decoder time per generated token
  double tokens_per_s = 0;   // generated tokens / decoder time
  double sentence_ms = 0;    // whole call, median
  double peak_rss_mb = 0;    // process high-water mark since this model was loaded
  // Greedy: median latency of the step at position 1, 2, ...; NAN where unknown (position 1).
  std::vector<double> per_step_ms;
};

// File mode (--file): a whole text file translated as paragraphs (TextTranslator), batched.
struct FileRow {
  std::string model, precision, input;
  int threads = 1, beam = 1, batch = 1;
  std::string shortlist = "none";  // as BenchRow
  size_t lines = 0, sentences = 0;
  double source_tokens = 0, target_tokens = 0;  // per pass, EOS included / excluded
  double seconds = 0;                           // one pass over the file, median over the passes
  double load_ms = 0, peak_rss_mb = 0, arena_mb = 0;
};

// Load mode (--loads N): the model loaded N times; medians of Translator::load_times() (wall
// clock), the resident memory right after the first load, and the high-water mark over them.
struct LoadRow {
  std::string model, precision;
  int threads = 1, loads = 0;
  double file_ms = 0, tokenizer_ms = 0, operators_ms = 0, arena_ms = 0, total_ms = 0;
  double rss_mb = 0, peak_rss_mb = 0;
};

enum class Format { kMarkdown, kJson, kCsv };

// Writes all rows in `format`; markdown and CSV start with a header line.
void write_rows(FILE* out, Format format, const std::vector<BenchRow>& rows);
void write_rows(FILE* out, Format format, const std::vector<FileRow>& rows);
void write_rows(FILE* out, Format format, const std::vector<LoadRow>& rows);

}  // namespace pmt::bench
