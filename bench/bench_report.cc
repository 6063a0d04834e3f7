#include "bench_report.h"

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace pmt::bench {
namespace {

// A number for JSON: NaN and infinities (unknown values) become null, whole numbers integers.
nlohmann::ordered_json json_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return static_cast<int64_t>(v);
  return v;
}

// A number printed as `format` does, read back so JSON shows the same digits.
nlohmann::ordered_json json_number(const char* format, double v) {
  if (!std::isfinite(v)) return nullptr;
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return json_number(std::strtod(buf, nullptr));
}

// The rows as a JSON array, one row per line; text that is not UTF-8 shows as U+FFFD.
void write_json_rows(FILE* out, const std::vector<nlohmann::ordered_json>& rows) {
  std::fprintf(out, "[\n");
  for (size_t i = 0; i < rows.size(); ++i)
    std::fprintf(out, " %s%s\n", rows[i].dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str(),
                 i + 1 < rows.size() ? "," : "");
  std::fprintf(out, "]\n");
}

// A CSV field, quoted when it holds a separator, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_markdown(FILE* out, const std::vector<BenchRow>& rows) {
  std::fprintf(out,
               "| model | type | MB | input | threads | beam | shortlist | src | gen | load ms | encoder ms | first token ms "
               "| ms/token | p90 ms/token | tokens/s | sentence ms | peak RSS MB |\n"
               "|---|---|--:|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (const BenchRow& r : rows)
    std::fprintf(out,
                 "| %s | %s | %.2f | %s | %d | %d | %s | %.4g | %.4g | %.1f | %.3f | %.3f | %.4f | %.4f | %.0f | %.2f "
                 "| %.1f |\n",
                 r.model.c_str(), r.precision.c_str(), r.model_mb, r.input.c_str(), r.threads, r.beam, r.shortlist.c_str(),
                 r.src_len, r.generated, r.load_ms, r.encoder_ms, r.first_token_ms, r.token_ms_median, r.token_ms_p90,
                 r.tokens_per_s, r.sentence_ms, r.peak_rss_mb);
}

void write_json(FILE* out, const std::vector<BenchRow>& rows) {
  std::vector<nlohmann::ordered_json> json;
  for (const BenchRow& r : rows) {
    nlohmann::ordered_json per_step = nlohmann::ordered_json::array();
    for (const double ms : r.per_step_ms) per_step.push_back(json_number("%.6g", ms));
    json.push_back({{"engine", "pocketmt"},
                    {"model", r.model},
                    {"precision", r.precision},
                    {"model_mb", json_number("%.3f", r.model_mb)},
                    {"input", r.input},
                    {"clock", r.clock},
                    {"threads", r.threads},
                    {"beam", r.beam},
                    {"shortlist", r.shortlist},
                    {"src_len", json_number("%.6g", r.src_len)},
                    {"gen_len", r.gen_len},
                    {"generated", json_number("%.6g", r.generated)},
                    {"load_ms", json_number("%.6g", r.load_ms)},
                    {"encoder_ms", json_number("%.6g", r.encoder_ms)},
                    {"first_token_ms", json_number("%.6g", r.first_token_ms)},
                    {"per_token_ms_median", json_number("%.6g", r.token_ms_median)},
                    {"per_token_ms_p90", json_number("%.6g", r.token_ms_p90)},
                    {"tokens_per_s", json_number("%.6g", r.tokens_per_s)},
                    {"sentence_ms", json_number("%.6g", r.sentence_ms)},
                    {"peak_rss_mb", json_number("%.6g", r.peak_rss_mb)},
                    {"per_step_ms", std::move(per_step)}});
  }
  write_json_rows(out, json);
}

void write_csv(FILE* out, const std::vector<BenchRow>& rows) {
  std::fprintf(out,
               "model,precision,model_mb,input,clock,threads,beam,shortlist,src_len,gen_len,generated,load_ms,encoder_ms,"
               "first_token_ms,per_token_ms_median,per_token_ms_p90,tokens_per_s,sentence_ms,peak_rss_mb\n");
  for (const BenchRow& r : rows)
    std::fprintf(out, "%s,%s,%.3f,%s,%s,%d,%d,%s,%.6g,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                 csv_field(r.model).c_str(), r.precision.c_str(), r.model_mb, csv_field(r.input).c_str(), r.clock.c_str(), r.threads,
                 r.beam, r.shortlist.c_str(), r.src_len, r.gen_len, r.generated, r.load_ms, r.encoder_ms, r.first_token_ms,
                 r.token_ms_median, r.token_ms_p90, r.tokens_per_s, r.sentence_ms, r.peak_rss_mb);
}

// One cell of a file-mode row: its JSON/CSV key, markdown heading and text.
struct Cell {
  const char* key;
  const char* heading;
  std::string text;
  bool quoted;  // a string in JSON (otherwise a number, NaN as null)
};

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::vector<Cell> cells(const FileRow& r) {
  const double s = r.seconds > 0 ? r.seconds : NAN;
  return {{"model", "model", r.model, true},
          {"precision", "type", r.precision, true},
          {"input", "input", r.input, true},
          {"threads", "threads", number("%.0f", r.threads), false},
          {"batch", "batch", number("%.0f", r.batch), false},
          {"beam", "beam", number("%.0f", r.beam), false},
          {"shortlist", "shortlist", r.shortlist, true},
          {"lines", "lines", number("%.0f", static_cast<double>(r.lines)), false},
          {"sentences", "sentences", number("%.0f", static_cast<double>(r.sentences)), false},
          {"target_tokens", "target tokens", number("%.0f", r.target_tokens), false},
          {"seconds", "s", number("%.3f", r.seconds), false},
          {"sentences_per_s", "sentences/s", number("%.1f", static_cast<double>(r.sentences) / s), false},
          {"target_tokens_per_s", "target tokens/s", number("%.0f", r.target_tokens / s), false},
          {"load_ms", "load ms", number("%.1f", r.load_ms), false},
          {"arena_mb", "arena MB", number("%.1f", r.arena_mb), false},
          {"peak_rss_mb", "peak RSS MB", number("%.1f", r.peak_rss_mb), false}};
}

std::vector<Cell> cells(const LoadRow& r) {
  return {{"model", "model", r.model, true},
          {"precision", "type", r.precision, true},
          {"threads", "threads", number("%.0f", r.threads), false},
          {"loads", "loads", number("%.0f", r.loads), false},
          {"file_ms", "file ms", number("%.2f", r.file_ms), false},
          {"tokenizer_ms", "tokenizer ms", number("%.2f", r.tokenizer_ms), false},
          {"operators_ms", "operators ms", number("%.2f", r.operators_ms), false},
          {"arena_ms", "arena ms", number("%.2f", r.arena_ms), false},
          {"total_ms", "load ms", number("%.2f", r.total_ms), false},
          {"rss_mb", "RSS after load MB", number("%.1f", r.rss_mb), false},
          {"peak_rss_mb", "peak RSS MB", number("%.1f", r.peak_rss_mb), false}};
}

// Rows of named cells as a markdown table, JSON or CSV.
template <class Row>
void write_cell_rows(FILE* out, Format format, const std::vector<Row>& rows) {
  if (format == Format::kJson) {
    std::vector<nlohmann::ordered_json> json;
    for (const Row& r : rows) {
      nlohmann::ordered_json o;
      for (const Cell& cell : cells(r))
        o[cell.key] = cell.quoted ? nlohmann::ordered_json(cell.text) : json_number(std::strtod(cell.text.c_str(), nullptr));
      json.push_back(std::move(o));
    }
    return write_json_rows(out, json);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<Cell> row = cells(rows[i]);
    if (i == 0 && format != Format::kJson) {
      for (size_t c = 0; c < row.size(); ++c) {
        if (format == Format::kCsv)
          std::fprintf(out, "%s%s", c ? "," : "", row[c].key);
        else
          std::fprintf(out, "| %s ", row[c].heading);
      }
      if (format == Format::kMarkdown) {
        std::fprintf(out, "|\n");
        for (const Cell& cell : row) std::fprintf(out, "|%s", cell.quoted ? "---" : "--:");
        std::fprintf(out, "|");
      }
      std::fprintf(out, "\n");
    }
    for (size_t c = 0; c < row.size(); ++c) {
      const Cell& cell = row[c];
      switch (format) {
        case Format::kMarkdown: std::fprintf(out, "| %s ", cell.text.c_str()); break;
        case Format::kCsv: std::fprintf(out, "%s%s", c ? "," : "", cell.quoted ? csv_field(cell.text).c_str() : cell.text.c_str()); break;
        case Format::kJson: break;  // above
      }
    }
    std::fprintf(out, format == Format::kMarkdown ? "|\n" : "\n");
  }
}

}  // namespace

void write_rows(FILE* out, Format format, const std::vector<FileRow>& rows) { write_cell_rows(out, format, rows); }
void write_rows(FILE* out, Format format, const std::vector<LoadRow>& rows) { write_cell_rows(out, format, rows); }

void write_rows(FILE* out, Format format, const std::vector<BenchRow>& rows) {
  switch (format) {
    case Format::kMarkdown: write_markdown(out, rows); break;
    case Format::kJson: write_json(out, rows); break;
    case Format::kCsv: write_csv(out, rows); break;
  }
}

}  // namespace pmt::bench
