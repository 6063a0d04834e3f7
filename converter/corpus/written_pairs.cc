#include "corpus/written_pairs.h"

#include <algorithm>
#include <set>

#include "common/text_lines.h"
#include "corpus/message_cleaning.h"

namespace pmt::corpus {
namespace fs = std::filesystem;
namespace {

std::set<std::string> word_set(const std::string& s) {
  const std::vector<std::string> words = lower_words(s);
  return {words.begin(), words.end()};
}

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 0.0;
  size_t common = 0;
  for (const std::string& w : a) common += b.count(w);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

}  // namespace

bool read_written_pairs(const fs::path& dir, std::vector<RawDocument>* documents, std::string* error) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".tsv") files.push_back(entry.path());
  }
  if (ec) return *error = "cannot read " + dir.string() + ": " + ec.message(), false;
  if (files.empty()) return *error = dir.string() + " holds no .tsv file", false;
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::vector<std::string> lines;
    if (*error = read_lines(file.string(), &lines); !error->empty()) return false;
    for (size_t n = 0; n < lines.size(); ++n) {
      const std::string_view line = lines[n];
      const size_t tab = line.find('\t');
      if (tab == std::string_view::npos || tab == 0 || tab + 1 == line.size() ||
          line.find('\t', tab + 1) != std::string_view::npos) {
        *error = file.string() + ":" + std::to_string(n + 1) + ": not 'English<TAB>Spanish'";
        return false;
      }
      const std::string en(line.substr(0, tab));
      documents->push_back({en, {{en, std::string(line.substr(tab + 1))}}});
    }
  }
  return true;
}

bool read_parallel_files(const std::string& prefix, std::vector<SentencePair>* pairs, std::string* error) {
  std::vector<std::string> en_lines, es_lines;
  if (*error = read_lines(prefix + ".en", &en_lines); !error->empty()) return false;
  if (*error = read_lines(prefix + ".es", &es_lines); !error->empty()) return false;
  if (en_lines.size() != es_lines.size()) {
    return *error = prefix + ".en and .es differ in line count (" + std::to_string(en_lines.size()) + " vs " +
                    std::to_string(es_lines.size()) + ")",
           false;
  }
  for (size_t i = 0; i < en_lines.size(); ++i) pairs->push_back({std::move(en_lines[i]), std::move(es_lines[i])});
  return true;
}

double word_set_jaccard(const std::string& a, const std::string& b) { return jaccard(word_set(a), word_set(b)); }

int64_t drop_test_like(const std::vector<SentencePair>& test, std::vector<RawDocument>* documents) {
  std::vector<std::set<std::string>> test_words;
  for (const SentencePair& p : test) test_words.push_back(word_set(p.en));
  int64_t dropped = 0;
  for (RawDocument& d : *documents) {
    const auto like = [&](const SentencePair& p) {
      const std::set<std::string> words = word_set(p.en);
      return std::any_of(test_words.begin(), test_words.end(),
                         [&](const std::set<std::string>& t) { return jaccard(words, t) >= kTestLikeJaccard; });
    };
    const size_t before = d.pairs.size();
    d.pairs.erase(std::remove_if(d.pairs.begin(), d.pairs.end(), like), d.pairs.end());
    dropped += static_cast<int64_t>(before - d.pairs.size());
  }
  return dropped;
}

}  // namespace pmt::corpus
