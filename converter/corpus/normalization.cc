#include "corpus/normalization.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "corpus/debian_packages.h"

namespace pmt::corpus {
namespace {

std::string hex(char32_t c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%X", static_cast<unsigned>(c));
  return buffer;
}

bool parse_code_points(const std::string& field, std::vector<char32_t>* out) {
  std::istringstream in(field);
  std::string token;
  while (in >> token) {
    char* end = nullptr;
    const unsigned long c = std::strtoul(token.c_str(), &end, 16);
    if (*end != '\0' || c > 0x10FFFF) return false;
    out->push_back(static_cast<char32_t>(c));
  }
  return true;
}

}  // namespace

const std::vector<std::pair<char32_t, char32_t>>& punctuation_rules() {
  static const std::vector<std::pair<char32_t, char32_t>> rules = {
      {0x2018, '\''}, {0x2019, '\''}, {0x201A, '\''}, {0x201B, '\''}, {0x2032, '\''}, {0x2035, '\''},
      {0x0060, '\''}, {0x00B4, '\''},
      {0x201C, '"'},  {0x201D, '"'},  {0x201E, '"'},  {0x201F, '"'},  {0x2033, '"'},  {0x301D, '"'},
      {0x301E, '"'},
      {0x2010, '-'},  {0x2011, '-'},  {0x2012, '-'},  {0x2013, '-'},  {0x2212, '-'},
      {0x2015, 0x2014},
  };
  return rules;
}

bool merge_normalization_rules(const std::string& nmt_nfkc_tsv, std::string* merged, std::string* error) {
  std::map<char32_t, char32_t> ours(punctuation_rules().begin(), punctuation_rules().end());
  std::ostringstream out;
  std::istringstream in(nmt_nfkc_tsv);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const size_t tab1 = line.find('\t');
    const size_t tab2 = tab1 == std::string::npos ? std::string::npos : line.find('\t', tab1 + 1);
    std::vector<char32_t> from, to;
    if (tab1 == std::string::npos || !parse_code_points(line.substr(0, tab1), &from) || from.empty() ||
        !parse_code_points(line.substr(tab1 + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab1 - 1), &to)) {
      *error = "normalization table line " + std::to_string(n) + " is malformed: " + line.substr(0, 60);
      return false;
    }
    if (from.size() == 1 && ours.count(from[0])) continue;
    std::string from_text, to_text;
    const auto append = [](std::string* text, char32_t c) {
      if (!text->empty()) *text += ' ';
      *text += hex(c);
    };
    for (const char32_t c : from) append(&from_text, c);
    for (char32_t c : to) {
      if (const auto it = ours.find(c); it != ours.end()) c = it->second;
      append(&to_text, c);
    }
    out << from_text << '\t' << to_text << '\n';
  }
  for (const auto& [from, to] : punctuation_rules()) out << hex(from) << '\t' << hex(to) << '\n';
  *merged = std::move(out).str();
  return true;
}

bool write_normalization_tsv(const std::filesystem::path& path, std::string* error) {
  const std::filesystem::path raw = path.string() + ".nmt_nfkc";
  const std::string command = "spm_normalize --normalization_rule_name=nmt_nfkc --decompile --output " +
                              shell_quote(raw.string()) + " </dev/null >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    *error = "spm_normalize --decompile failed (Debian package sentencepiece)";
    return false;
  }
  std::string table, merged;
  const bool ok = read_file(raw, &table, error) && merge_normalization_rules(table, &merged, error);
  std::filesystem::remove(raw);
  if (!ok) return false;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << merged;
  file.close();
  if (!file) {
    *error = "cannot write " + path.string();
    return false;
  }
  return true;
}

}  // namespace pmt::corpus
