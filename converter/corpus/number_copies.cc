#include "corpus/number_copies.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <unordered_map>

#include "corpus/software_text.h"

namespace pmt::corpus {
namespace {

struct Span {
  size_t begin, end;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::vector<Span> digit_runs(std::string_view s) {
  std::vector<Span> runs;
  for (size_t i = 0; i < s.size();) {
    if (!is_digit(s[i])) {
      ++i;
      continue;
    }
    const size_t begin = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    runs.push_back({begin, i});
  }
  return runs;
}

// xorshift32: the digits of a replacement, from a hash of the pair.
uint32_t next(uint32_t* state) {
  uint32_t x = *state != 0 ? *state : 0x9E3779B9u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

// Another run of the same length: a leading 0 stays (03 stays a two-digit 0N), the first digit of
// a longer run is drawn from 1-9, every other from 0-9.
std::string other_run(std::string_view run, uint32_t* state) {
  std::string out(run);
  for (size_t k = 0; k < out.size(); ++k) {
    if (k == 0 && run[0] == '0' && run.size() > 1) continue;
    out[k] = static_cast<char>(k == 0 && run.size() > 1 ? '1' + next(state) % 9 : '0' + next(state) % 10);
  }
  if (out == run) out.back() = static_cast<char>('0' + (out.back() - '0' + 1) % 10);
  return out;
}

std::string replace_spans(std::string_view s, const std::vector<Span>& spans,
                          const std::vector<std::string>& with) {
  std::string out;
  size_t at = 0;
  for (size_t k = 0; k < spans.size(); ++k) {
    out.append(s.substr(at, spans[k].begin - at)).append(with[k]);
    at = spans[k].end;
  }
  return out.append(s.substr(at));
}

bool copy_digits(const SentencePair& p, SentencePair* copy) {
  const std::vector<Span> en = digit_runs(p.en), es = digit_runs(p.es);
  if (en.empty() || en.size() != es.size()) return false;
  std::vector<std::string> en_runs, es_runs;
  for (const Span& r : en) en_runs.emplace_back(p.en.substr(r.begin, r.end - r.begin));
  for (const Span& r : es) es_runs.emplace_back(p.es.substr(r.begin, r.end - r.begin));
  std::vector<std::string> a = en_runs, b = es_runs;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b) return false;
  uint32_t state = stable_hash(p.en + '\t' + p.es);
  std::unordered_map<std::string, std::string> other;
  for (const std::string& run : a)
    if (!other.count(run)) other[run] = other_run(run, &state);
  for (std::string& run : en_runs) run = other[run];
  for (std::string& run : es_runs) run = other[run];
  *copy = {replace_spans(p.en, en, en_runs), replace_spans(p.es, es, es_runs)};
  return true;
}

struct NumberWord {
  std::string_view en, es;
};
constexpr std::array<NumberWord, 19> kNumberWords = {{{"two", "dos"}, {"three", "tres"}, {"four", "cuatro"},
    {"five", "cinco"}, {"six", "seis"}, {"seven", "siete"}, {"eight", "ocho"}, {"nine", "nueve"},
    {"ten", "diez"}, {"eleven", "once"}, {"twelve", "doce"}, {"fifteen", "quince"}, {"twenty", "veinte"},
    {"thirty", "treinta"}, {"forty", "cuarenta"}, {"fifty", "cincuenta"}, {"sixty", "sesenta"},
    {"seventy", "setenta"}, {"ninety", "noventa"}}};

// A letter for word boundaries: ASCII letters and every byte of a multi-byte UTF-8 letter.
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (static_cast<unsigned char>(c) & 0x80) != 0;
}

// Where the number words of the list occur in s as whole words (any case): (word index, span).
std::vector<std::pair<size_t, Span>> number_words(std::string_view s, bool english) {
  std::vector<std::pair<size_t, Span>> found;
  for (size_t i = 0; i < s.size();) {
    if (!is_letter(s[i])) {
      ++i;
      continue;
    }
    const size_t begin = i;
    while (i < s.size() && is_letter(s[i])) ++i;
    std::string word(s.substr(begin, i - begin));
    for (char& c : word) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    for (size_t w = 0; w < kNumberWords.size(); ++w)
      if (word == (english ? kNumberWords[w].en : kNumberWords[w].es)) found.push_back({w, {begin, i}});
  }
  return found;
}

bool copy_words(const SentencePair& p, SentencePair* copy) {
  const auto en = number_words(p.en, true), es = number_words(p.es, false);
  if (en.size() != 1 || es.size() != 1 || en[0].first != es[0].first) return false;
  uint32_t state = stable_hash(p.en + '\t' + p.es);
  const uint32_t digits = 1 + next(&state) % 4;
  std::string number(1, static_cast<char>('1' + next(&state) % 9));
  while (number.size() < digits) number.push_back(static_cast<char>('0' + next(&state) % 10));
  *copy = {replace_spans(p.en, {en[0].second}, {number}), replace_spans(p.es, {es[0].second}, {number})};
  return true;
}

}  // namespace

std::vector<SentencePair> number_copies(const std::vector<SentencePair>& pairs, NumberCopyCounts* counts) {
  std::vector<SentencePair> copies;
  SentencePair copy;
  for (const SentencePair& p : pairs) {
    if (copy_digits(p, &copy)) {
      ++counts->digits;
    } else if (copy_words(p, &copy)) {
      ++counts->words;
    } else {
      continue;
    }
    copies.push_back(std::move(copy));
  }
  return copies;
}

}  // namespace pmt::corpus
