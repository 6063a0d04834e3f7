#include "corpus/message_cleaning.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <unordered_set>

#include "corpus/utf8.h"

namespace pmt::corpus {
namespace {

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_alnum(char c) { return is_ascii_letter(c) || is_ascii_digit(c); }

// Letters and digits for word counting: ASCII ones and every code point from U+00C0 on that is
// not a symbol or punctuation block this text uses (×, ÷, General Punctuation to Misc Symbols,
// CJK punctuation) nor a space.
bool is_word_char(char32_t c) {
  if (c < 0x80) return is_ascii_alnum(static_cast<char>(c));
  if (c < 0xC0 || c == 0xD7 || c == 0xF7) return false;
  if ((c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F)) return false;
  return !text::is_space(c);
}

char32_t lower_latin(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  return c;
}

char32_t upper_latin(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  return c;
}

const std::unordered_set<std::string_view>& block_tags() {
  static const std::unordered_set<std::string_view> tags = {
      "p", "br", "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "td", "th", "table", "thead",
      "tbody", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "pre", "blockquote", "section", "para",
      "title", "item", "list", "listitem", "itemizedlist", "orderedlist", "row", "entry", "note",
      "tip", "warning", "caution", "step", "steps", "figure", "page", "paragraph", "bookmark_value"};
  return tags;
}

// Length of a tag starting at s[i] == '<', or 0 when the text there is not a tag.
size_t tag_length(std::string_view s, size_t i, std::string_view* name) {
  size_t j = i + 1;
  if (j < s.size() && s[j] == '/') ++j;
  const size_t name_start = j;
  while (j < s.size() && (is_ascii_alnum(s[j]) || s[j] == '-' || s[j] == '_' || s[j] == ':')) ++j;
  if (j == name_start || !is_ascii_letter(s[name_start])) return 0;
  *name = s.substr(name_start, j - name_start);
  if (j < s.size() && s[j] != '>' && s[j] != '/' && s[j] != ' ' && s[j] != '\n' && s[j] != '\t') return 0;
  const size_t end = s.find_first_of("<>", j);
  if (end == std::string_view::npos || s[end] != '>') return 0;
  return end + 1 - i;
}

// Length of an entity at s[i] == '&' and its decoded text, or 0.
size_t entity_length(std::string_view s, size_t i, std::string* decoded) {
  static const std::array<std::pair<std::string_view, std::string_view>, 6> named = {{
      {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", "\u00a0"}}};
  const size_t semi = s.find(';', i);
  if (semi == std::string_view::npos || semi - i > 10) return 0;
  const std::string_view body = s.substr(i + 1, semi - i - 1);
  for (const auto& [name, text] : named) {
    if (body == name) {
      *decoded = text;
      return semi + 1 - i;
    }
  }
  if (body.size() >= 2 && body[0] == '#') {
    const bool hex = body[1] == 'x' || body[1] == 'X';
    const std::string digits(body.substr(hex ? 2 : 1));
    if (digits.empty()) return 0;
    char* end = nullptr;
    const unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
    if (*end != '\0' || cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    *decoded = text::encode_utf8(std::u32string(1, static_cast<char32_t>(cp)));
    return semi + 1 - i;
  }
  return 0;
}

bool starts_entity(std::string_view s, size_t i) {
  std::string unused;
  return entity_length(s, i, &unused) > 0;
}

}  // namespace

std::string strip_markup(std::string_view s) {
  std::string no_tags;
  for (size_t i = 0; i < s.size();) {
    std::string_view name;
    if (s[i] == '<') {
      if (const size_t n = tag_length(s, i, &name)) {
        std::string lower(name);
        for (char& c : lower) c = static_cast<char>(lower_latin(static_cast<unsigned char>(c)));
        if (block_tags().count(lower)) no_tags += ' ';
        i += n;
        continue;
      }
    }
    no_tags += s[i++];
  }
  std::string out;
  for (size_t i = 0; i < no_tags.size();) {
    std::string decoded;
    if (no_tags[i] == '&') {
      if (const size_t n = entity_length(no_tags, i, &decoded)) {
        out += decoded;
        i += n;
        continue;
      }
    }
    out += no_tags[i++];
  }
  return out;
}

std::string strip_accelerators(std::string_view s) {
  std::string out(s);
  // "(_F)" / "(&F)" / "(~F)", with the space before it.
  for (size_t i = 0; i + 3 < out.size(); ++i) {
    if (out[i] == '(' && (out[i + 1] == '_' || out[i + 1] == '&' || out[i + 1] == '~') &&
        is_ascii_alnum(out[i + 2]) && out[i + 3] == ')') {
      const size_t start = i > 0 && out[i - 1] == ' ' ? i - 1 : i;
      out.erase(start, i + 4 - start);
      i = start;
    }
  }
  for (const char marker : {'_', '~', '&'}) {
    size_t count = 0, at = 0;
    for (size_t i = 0; i + 1 < out.size(); ++i) {
      if (out[i] != marker) continue;
      if (marker == '&' && (out[i + 1] == '&' || starts_entity(out, i))) {
        ++i;  // "&&" or an entity: not a marker
        continue;
      }
      const unsigned char next = static_cast<unsigned char>(out[i + 1]);
      if (is_ascii_alnum(static_cast<char>(next)) || next >= 0xC0) {
        ++count;
        at = i;
      }
    }
    if (count == 1) out.erase(at, 1);
  }
  return out;
}

std::string collapse_whitespace(std::string_view s) {
  std::u32string out;
  bool pending_space = false;
  for (const char32_t c : text::decode_utf8(s)) {
    if (text::is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += U' ';
    pending_space = false;
    out += c;
  }
  return text::encode_utf8(out);
}

std::vector<std::string> placeholders(std::string_view s) {
  std::vector<std::string> found;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    size_t j = i + 1;
    if (c == '%') {
      if (j < s.size() && s[j] == '%') {
        ++i;  // "%%" is a literal percent sign
        continue;
      }
      if (j < s.size() && s[j] == '(') {  // %(name)s
        const size_t close = s.find(')', j);
        if (close == std::string_view::npos || close + 1 >= s.size()) continue;
        j = close + 2;
      } else if (j < s.size() && is_ascii_letter(s[j]) && s[j] >= 'A' && s[j] <= 'Z' && j + 1 < s.size() &&
                 s[j + 1] >= 'A' && s[j + 1] <= 'Z') {  // %PRODUCTNAME
        while (j < s.size() && ((s[j] >= 'A' && s[j] <= 'Z') || s[j] == '_' || is_ascii_digit(s[j]))) ++j;
      } else {
        // printf: [argnum$][flags][width][.precision][length]conversion, or Qt's %1
        // (printf's space flag is left out: "50 % done" is prose far more often than "% d")
        while (j < s.size() && (is_ascii_digit(s[j]) || s[j] == '$' || s[j] == '-' || s[j] == '+' ||
                                s[j] == '#' || s[j] == '\'' || s[j] == '.' || s[j] == '*')) {
          ++j;
        }
        while (j < s.size() && (s[j] == 'l' || s[j] == 'h' || s[j] == 'z' || s[j] == 'j' || s[j] == 't' || s[j] == 'L' || s[j] == 'q')) ++j;
        const bool conversion = j < s.size() && std::string_view("diouxXeEfFgGaAcspnmCS").find(s[j]) != std::string_view::npos;
        if (conversion) {
          ++j;
        } else if (!(j > i + 1 && is_ascii_digit(s[i + 1]))) {
          continue;  // a lone percent sign ("50 %")
        }
      }
    } else if (c == '$' && j < s.size() && (s[j] == '{' || (s[j] >= 'A' && s[j] <= 'Z'))) {
      if (s[j] == '{') {
        const size_t close = s.find('}', j);
        if (close == std::string_view::npos) continue;
        j = close + 1;
      } else {
        while (j < s.size() && ((s[j] >= 'A' && s[j] <= 'Z') || s[j] == '_' || is_ascii_digit(s[j]))) ++j;
      }
    } else if (c == '{') {
      const size_t close = s.find('}', j);
      if (close == std::string_view::npos || close - j > 40) continue;
      const std::string_view body = s.substr(j, close - j);
      const bool identifier = !body.empty() && std::all_of(body.begin(), body.end(), [](char b) {
        return is_ascii_alnum(b) || b == '_' || b == '$' || b == ' ' || b == '-' || b == '.' || b == ':';
      });
      if (!identifier) continue;
      j = close + 1;
    } else {
      continue;
    }
    std::string p(s.substr(i, j - i));
    if (c == '{') std::erase(p, ' ');  // "{ $var }" and "{$var}" are the same placeholder
    found.push_back(std::move(p));
    i = j - 1;
  }
  std::sort(found.begin(), found.end());
  return found;
}

FunctionWords count_function_words(std::string_view s) {
  // Frequent function words of each language that are not words of the other.
  static const std::unordered_set<std::string> english = {
      "the", "of", "and", "to", "is", "are", "was", "were", "this", "that", "with", "for", "from",
      "you", "your", "it", "its", "be", "been", "has", "have", "not", "which", "will", "can",
      "cannot", "could", "should", "would", "an", "or", "on", "at", "by", "if", "when", "there",
      "these", "those", "they", "their", "what", "how", "file", "files", "please", "select",
      "enter", "click", "use", "using", "failed", "unable", "invalid", "error", "into", "than"};
  static const std::unordered_set<std::string> spanish = {
      "el", "la", "los", "las", "de", "del", "y", "que", "es", "son", "un", "una", "unos", "unas",
      "por", "para", "con", "sin", "se", "su", "sus", "al", "lo", "le", "les", "está", "están",
      "este", "esta", "estos", "estas", "ese", "esa", "no", "puede", "pueden", "archivo",
      "archivos", "error", "cuando", "si", "como", "pero", "más", "ya", "hay", "ha", "han", "fue",
      "usted", "seleccione", "pulse", "haga", "clic", "desde", "entre", "sobre", "también"};
  FunctionWords counts;
  for (const std::string& w : lower_words(s)) {
    const bool en = english.count(w) > 0, es = spanish.count(w) > 0;
    if (en && !es) ++counts.english;
    if (es && !en) ++counts.spanish;
  }
  return counts;
}

std::vector<std::string> lower_words(std::string_view s) {
  std::vector<std::string> words;
  std::u32string word;
  const auto flush = [&] {
    if (!word.empty()) words.push_back(text::encode_utf8(word));
    word.clear();
  };
  for (const char32_t c : text::decode_utf8(s)) {
    if (is_word_char(c)) {
      word += lower_latin(c);
    } else {
      flush();
    }
  }
  flush();
  return words;
}

int count_words(std::string_view s) {
  int words = 0;
  bool in_word = false;
  for (const char32_t c : text::decode_utf8(s)) {
    const bool w = is_word_char(c);
    if (w && !in_word) ++words;
    in_word = w;
  }
  return words;
}

std::string to_upper_latin(std::string_view s) {
  std::u32string cps = text::decode_utf8(s);
  for (char32_t& c : cps) c = upper_latin(c);
  return text::encode_utf8(cps);
}

std::string near_duplicate_key(std::string_view s) {
  std::u32string key;
  for (const char32_t c : text::decode_utf8(s)) {
    if (is_word_char(c)) key += lower_latin(c);
  }
  return text::encode_utf8(key);
}

}  // namespace pmt::corpus
