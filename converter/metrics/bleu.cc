#include "metrics/bleu.h"

#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "corpus/utf8.h"

namespace pmt::metrics {
namespace {

constexpr int kMaxOrder = 4;

void replace_all(std::string* s, std::string_view from, std::string_view to) {
  for (size_t pos = s->find(from); pos != std::string::npos; pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// The character class of 13a's first rule, [\{-\~\[-\` -\&\(-\+\:-\@\/]: ASCII symbols except
// the apostrophe, hyphen, period and comma (space is in the range too; it is harmless).
bool is_split_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// One left-to-right pass of a two-character regular expression substitution with Python's re.sub
// semantics (non-overlapping matches, scanning resumes after a match). Working on bytes is exact
// here: every pattern that can match a non-ASCII byte keeps it unchanged and only inserts spaces
// next to ASCII characters, and continuation bytes never start a match that a code point would not.
template <typename Match, typename Emit>
std::string substitute_pairs(const std::string& s, Match match, Emit emit) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && match(s[i], s[i + 1])) {
      emit(&out, s[i], s[i + 1]);
      i += 2;
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

// Counts of every n-gram (n = 1..4) of a token sequence, keyed by the tokens joined with spaces
// (tokens never contain spaces) and the order, so equal strings of different orders stay apart.
using NgramCounts = std::unordered_map<std::string, int64_t>;

NgramCounts count_ngrams(const std::vector<std::string_view>& tokens) {
  NgramCounts counts;
  for (int n = 1; n <= kMaxOrder; ++n) {
    for (size_t i = 0; i + n <= tokens.size(); ++i) {
      std::string key(1, static_cast<char>('0' + n));
      for (int k = 0; k < n; ++k) {
        key.push_back(' ');
        key.append(tokens[i + k]);
      }
      ++counts[key];
    }
  }
  return counts;
}

// Python's str.rstrip(): drops trailing whitespace (sacreBLEU strips before tokenizing).
std::string_view rstrip(std::string_view s) {
  const auto fields = text::split_on_space(s);
  if (fields.empty()) return {};
  return s.substr(0, fields.back().data() + fields.back().size() - s.data());
}

}  // namespace

std::string tokenize_13a(std::string_view line) {
  std::string s(line);
  replace_all(&s, "<skipped>", "");
  replace_all(&s, "-\n", "");
  replace_all(&s, "\n", " ");
  if (s.find('&') != std::string::npos) {
    replace_all(&s, "&quot;", "\"");
    replace_all(&s, "&amp;", "&");
    replace_all(&s, "&lt;", "<");
    replace_all(&s, "&gt;", ">");
  }
  std::string padded;
  padded.reserve(s.size() * 2 + 2);
  padded.push_back(' ');
  for (char c : s) {
    if (is_split_symbol(c)) {
      padded.push_back(' ');
      padded.push_back(c);
      padded.push_back(' ');
    } else {
      padded.push_back(c);
    }
  }
  padded.push_back(' ');
  // Period and comma split off unless preceded by a digit: ([^0-9])([\.,]) -> "\1 \2 ".
  s = substitute_pairs(
      padded, [](char a, char b) { return !is_digit(a) && is_period_or_comma(b); },
      [](std::string* out, char a, char b) { *out += {a, ' ', b, ' '}; });
  // ... and unless followed by a digit: ([\.,])([^0-9]) -> " \1 \2".
  s = substitute_pairs(
      s, [](char a, char b) { return is_period_or_comma(a) && !is_digit(b); },
      [](std::string* out, char a, char b) { *out += {' ', a, ' ', b}; });
  // A dash after a digit: ([0-9])(-) -> "\1 \2 ".
  s = substitute_pairs(
      s, [](char a, char b) { return is_digit(a) && b == '-'; },
      [](std::string* out, char a, char b) { *out += {a, ' ', b, ' '}; });
  std::string joined;
  joined.reserve(s.size());
  for (std::string_view token : text::split_on_space(s)) {
    if (!joined.empty()) joined.push_back(' ');
    joined.append(token);
  }
  return joined;
}

BleuScore corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::string>& refs) {
  if (hyps.size() != refs.size()) {
    throw std::invalid_argument("corpus_bleu: " + std::to_string(hyps.size()) + " hypotheses but " +
                                std::to_string(refs.size()) + " references");
  }
  int64_t correct[kMaxOrder] = {}, total[kMaxOrder] = {};
  BleuScore result{};
  for (size_t s = 0; s < hyps.size(); ++s) {
    const std::string hyp_text = tokenize_13a(rstrip(hyps[s]));
    const std::string ref_text = tokenize_13a(rstrip(refs[s]));
    const auto hyp_tokens = text::split_on_space(hyp_text);
    const auto ref_tokens = text::split_on_space(ref_text);
    result.sys_len += static_cast<int64_t>(hyp_tokens.size());
    result.ref_len += static_cast<int64_t>(ref_tokens.size());
    const NgramCounts ref_counts = count_ngrams(ref_tokens);
    for (const auto& [key, count] : count_ngrams(hyp_tokens)) {
      const int order = key[0] - '1';
      total[order] += count;
      const auto it = ref_counts.find(key);
      if (it != ref_counts.end()) correct[order] += std::min(count, it->second);
    }
  }

  result.brevity_penalty = 1.0;
  if (result.sys_len < result.ref_len) {
    result.brevity_penalty = result.sys_len > 0
        ? std::exp(1.0 - static_cast<double>(result.ref_len) / static_cast<double>(result.sys_len))
        : 0.0;
  }
  result.sys_ref_ratio = result.ref_len > 0
      ? static_cast<double>(result.sys_len) / static_cast<double>(result.ref_len) : 0.0;

  bool any_match = false;
  for (int n = 0; n < kMaxOrder; ++n) any_match |= correct[n] > 0;
  if (!any_match) return result;  // score and precisions stay 0, as sacreBLEU returns them

  // "exp" smoothing (mteval-v13a): the k-th order with no match gets precision 1 / (2^k * total).
  double smooth = 1.0;
  for (int n = 0; n < kMaxOrder; ++n) {
    if (total[n] == 0) break;  // later precisions stay 0 and the score collapses to 0
    if (correct[n] == 0) {
      smooth *= 2.0;
      result.precisions[n] = 100.0 / (smooth * static_cast<double>(total[n]));
    } else {
      result.precisions[n] = 100.0 * static_cast<double>(correct[n]) / static_cast<double>(total[n]);
    }
  }
  double log_sum = 0.0;
  for (double p : result.precisions) {
    if (p <= 0.0) return result;  // log(0): sacreBLEU's score is exp(-huge) = 0
    log_sum += std::log(p);
  }
  result.score = result.brevity_penalty * std::exp(log_sum / kMaxOrder);
  return result;
}

}  // namespace pmt::metrics
