#include "corpus/rv1909_text.h"

#include <vector>

#include "corpus/utf8.h"

namespace pmt::corpus {
namespace {

// Letters and case of ASCII and Latin-1, which covers every letter of RV1909.
bool is_upper(char32_t c) { return (c >= U'A' && c <= U'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7); }
bool is_lower(char32_t c) { return (c >= U'a' && c <= U'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7); }
bool is_letter(char32_t c) { return is_upper(c) || is_lower(c); }
char32_t to_lower(char32_t c) { return is_upper(c) ? c + 0x20 : c; }
char32_t to_upper(char32_t c) { return is_lower(c) && c != 0xDF && c != 0xFF ? c - 0x20 : c; }

struct Word {
  size_t begin, end;  // code point positions in the verse
};

std::vector<Word> find_words(const std::u32string& s) {
  std::vector<Word> words;
  for (size_t i = 0; i < s.size();) {
    if (!is_letter(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && is_letter(s[j])) ++j;
    words.push_back({i, j});
    i = j;
  }
  return words;
}

bool all_capitals(const std::u32string& s, Word w) {
  for (size_t i = w.begin; i < w.end; ++i) {
    if (!is_upper(s[i])) return false;
  }
  return true;
}

std::u32string lower_word(const std::u32string& s, Word w) {
  std::u32string out;
  for (size_t i = w.begin; i < w.end; ++i) out.push_back(to_lower(s[i]));
  return out;
}

}  // namespace

std::string cut_subscription(std::string_view verse) {
  constexpr std::string_view kAmen = "Amén.";
  const size_t at = verse.rfind(kAmen);
  if (at == std::string_view::npos) return std::string(verse);
  return std::string(verse.substr(0, at + kAmen.size()));
}

void WordCaseCounts::add_text(std::string_view text) {
  const std::u32string s = text::decode_utf8(text);
  for (Word w : find_words(s)) {
    if (all_capitals(s, w)) continue;
    auto& [lower, capital] = counts_[lower_word(s, w)];
    ++(is_upper(s[w.begin]) ? capital : lower);
  }
}

bool WordCaseCounts::prefers_capital(std::u32string_view lower_word) const {
  const auto it = counts_.find(std::u32string(lower_word));
  return it != counts_.end() && it->second.second > it->second.first;
}

std::string recase_chapter_opening(std::string_view verse, const WordCaseCounts& counts) {
  std::u32string s = text::decode_utf8(verse);
  const std::vector<Word> words = find_words(s);
  for (size_t first = 0; first < words.size();) {
    if (!all_capitals(s, words[first])) {
      ++first;
      continue;
    }
    // The run: following all-capital words separated from the previous one by a single space.
    size_t last = first;
    bool has_long_word = words[first].end - words[first].begin >= 2;
    while (last + 1 < words.size() && all_capitals(s, words[last + 1]) &&
           words[last + 1].begin == words[last].end + 1 && s[words[last].end] == U' ') {
      ++last;
      has_long_word |= words[last].end - words[last].begin >= 2;
    }
    const bool followed_by_other = last + 1 < words.size() && !all_capitals(s, words[last + 1]);
    if (!has_long_word || !followed_by_other) {
      first = last + 1;
      continue;
    }
    for (size_t k = first; k <= last; ++k) {
      const Word w = words[k];
      const std::u32string lower = lower_word(s, w);
      const bool capital = k == first || counts.prefers_capital(lower);
      for (size_t i = w.begin; i < w.end; ++i) {
        s[i] = capital && i == w.begin ? to_upper(lower[0]) : lower[i - w.begin];
      }
    }
    return text::encode_utf8(s);
  }
  return std::string(verse);
}

}  // namespace pmt::corpus
