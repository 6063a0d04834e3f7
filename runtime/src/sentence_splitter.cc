#include "pocketmt/sentence_splitter.h"

#include <algorithm>
#include <cstdint>
#include <span>

#include "letter_case.h"

namespace pmt {
namespace {

using rt::is_upper;

// Abbreviations (without their final "."), matched exactly: case is part of them ("No." before
// a number, but a Spanish "no." ends a sentence).
struct Abbreviations {
  std::span<const std::string_view> always;        // never end a sentence
  std::span<const std::string_view> before_digit;  // do not end one when a digit follows
};

constexpr std::string_view kEnglishAlways[] = {"Mr", "Mrs", "Ms", "Messrs", "Mmes", "Dr", "Drs", "Prof", "Profs", "Sr", "Jr", "St", "Mt", "Ft", "Rev",
     "Hon", "Gen", "Col", "Lt", "Sgt", "Capt", "Cmdr", "Adm", "Maj", "Gov", "Sen", "Rep", "Pres", "Supt",
     "Insp", "Ave", "Blvd", "Rd", "vs", "approx", "Approx", "cf", "Cf", "viz", "ca", "Dept", "dept", "Univ",
     "incl", "Incl", "al", "resp", "Assn"};
constexpr std::string_view kEnglishBeforeDigit[] = {"No", "no", "Nos", "nos", "Nr", "p", "pp", "Vol", "vol", "Vols", "Fig", "fig", "Figs", "Art", "art",
     "Ch", "ch", "Chap", "Sec", "sec", "Eq", "eq", "Ex", "ex", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul",
     "Aug", "Sep", "Sept", "Oct", "Nov", "Dec", "Tel", "tel", "Ref", "ref", "Op", "op", "v", "vv"};
constexpr std::string_view kSpanishAlways[] = {"Sr", "Sra", "Srta", "Sres", "Srs", "Sras", "Dr", "Dra", "Dres", "Dras", "Lic", "Lda", "Ldo", "Lcda",
     "Lcdo", "Ing", "Arq", "Prof", "Profa", "Ud", "Uds", "Vd", "Vds", "Dña", "Sto", "Sta", "Stos", "Excmo",
     "Excma", "Ilmo", "Ilma", "Rvdo", "Mons", "Av", "Avda", "Pza", "Gral", "Cnel", "Tte", "EE",
     "aprox", "Aprox", "admón", "Admón", "dpto", "Dpto", "depto", "Depto", "cía", "Cía", "Hnos", "ej",
     "al"};
constexpr std::string_view kSpanishBeforeDigit[] = {"núm", "Núm", "nº", "Nº", "n", "pág", "Pág", "págs", "p", "pp", "art", "Art", "cap", "Cap", "vol",
     "Vol", "fig", "Fig", "tel", "Tel", "apdo", "Apdo", "ene", "feb", "mar", "abr", "may", "jun", "jul",
     "ago", "sep", "sept", "oct", "nov", "dic"};
constexpr Abbreviations kEnglish{kEnglishAlways, kEnglishBeforeDigit};
constexpr Abbreviations kSpanish{kSpanishAlways, kSpanishBeforeDigit};

// One code point of UTF-8 at text[i]; a byte that starts no valid sequence decodes as itself
// plus 0x110000 (a letter of no case) with length 1.
struct CodePoint {
  uint32_t value;
  size_t length;
};
constexpr uint32_t kInvalid = 0x110000;

CodePoint decode(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  const size_t n = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (n == 0 || i + n > text.size()) return {kInvalid + b0, 1};
  uint32_t cp = b0 & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {kInvalid + b0, 1};
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  return {cp, n};
}

// The code point that ends at text[i - 1] (i > 0).
CodePoint decode_before(std::string_view text, size_t i) {
  size_t start = i - 1;
  while (start > 0 && i - start < 4 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
  const CodePoint cp = decode(text, start);
  return start + cp.length == i ? cp : CodePoint{kInvalid, 1};
}

bool is_space(uint32_t c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool is_terminal(uint32_t c) { return c == '.' || c == '!' || c == '?' || c == 0x2026 /* … */; }

bool is_closer(uint32_t c) {
  return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}' || c == 0x201D /* ” */ ||
         c == 0x2019 /* ’ */ || c == 0xBB /* » */ || c == 0x203A /* › */;
}

// Characters that may open a sentence before its first letter; ¿ and ¡ start one by themselves.
bool is_opener(uint32_t c) {
  return c == '"' || c == '\'' || c == '(' || c == '[' || c == '{' || c == 0x201C /* “ */ ||
         c == 0x2018 /* ‘ */ || c == 0x201E /* „ */ || c == 0xAB /* « */ || c == 0x2039 /* ‹ */ ||
         c == 0x2014 /* — (Spanish dialogue) */;
}

bool is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

// Letters of scripts without case (Hebrew, Arabic, Indic, CJK, ...) and undecodable bytes.
bool is_caseless_letter(uint32_t c) {
  if (c >= kInvalid) return true;
  if (c < 0x590) return false;                      // Latin, Greek, Cyrillic, Armenian: cased
  if (c >= 0x1E00 && c < 0x2C00) return false;      // Latin/Greek extended, punctuation, symbols
  if (c >= 0x3000 && c < 0x3040) return false;      // CJK punctuation
  if (c >= 0xFE30 && c < 0xFF66) return false;      // compatibility forms, full-width ASCII
  return true;
}

// Whether a sentence starts at text[i]: see the header's rules.
bool starts_sentence(std::string_view text, size_t i) {
  while (i < text.size()) {
    const CodePoint cp = decode(text, i);
    const uint32_t c = cp.value;
    if (is_upper(c) || is_digit(c) || c == 0xBF /* ¿ */ || c == 0xA1 /* ¡ */ || is_caseless_letter(c)) return true;
    if (!is_opener(c)) return false;
    i += cp.length;
  }
  return false;
}

bool contains(std::span<const std::string_view> list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

bool is_roman_numeral(std::string_view w) {
  if (w.empty() || w.size() > 4) return false;
  const bool upper = w.find_first_not_of("IVXLCDM") == std::string_view::npos;
  const bool lower = w.find_first_not_of("ivxlcdm") == std::string_view::npos;
  return upper || lower;
}

// Segments of one or two letters joined by dots: "U.S", "Ph.D", "e.g" (not "file.txt").
bool is_dotted_acronym(std::string_view w) {
  if (w.find('.') == std::string_view::npos) return false;
  size_t letters = 0;  // in the current segment
  for (size_t i = 0; i <= w.size();) {
    if (i == w.size() || w[i] == '.') {
      if (letters == 0 || letters > 2) return false;
      letters = 0;
      ++i;
      continue;
    }
    const CodePoint cp = decode(w, i);
    const uint32_t c = cp.value;
    if (!((c >= 'a' && c <= 'z') || is_upper(c) || (c >= 0xDF && c <= 0xFF && c != 0xF7))) return false;
    ++letters;
    i += cp.length;
  }
  return w != "a.m" && w != "p.m";
}

class Splitter {
 public:
  Splitter(std::string_view text, std::string_view language, std::vector<SentenceSpan>* out)
      : text_(text), out_(out), english_(language != "es"), spanish_(language != "en") {}

  void run() {
    out_->clear();
    size_t line = 0;
    while (line <= text_.size()) {
      size_t end = text_.find('\n', line);
      if (end == std::string_view::npos) end = text_.size();
      split_line(line, end);
      line = end + 1;
    }
  }

 private:
  // Splits text_[begin, end), a line without its "\n".
  void split_line(size_t begin, size_t end) {
    size_t start = skip_space(begin, end);
    size_t i = start;
    while (i < end) {
      const CodePoint cp = decode(text_, i);
      if (!is_terminal(cp.value)) {
        i += cp.length;
        continue;
      }
      size_t after = i;  // past the run of end punctuation, then past closing quotes/brackets
      while (after < end && is_terminal(decode(text_, after).value)) after += decode(text_, after).length;
      const bool single_dot = after == i + 1 && text_[i] == '.';
      while (after < end && is_closer(decode(text_, after).value)) after += decode(text_, after).length;
      const size_t next = skip_space(after, end);
      if (next > after && next < end && starts_sentence(text_, next) &&
          !(single_dot && keeps_sentence(start, i, next))) {
        out_->push_back({start, after});
        start = next;
      }
      i = next > after ? next : after;
    }
    size_t last = end;
    while (last > start && is_space(decode_before(text_, last).value)) last -= decode_before(text_, last).length;
    if (last > start) out_->push_back({start, last});
  }

  size_t skip_space(size_t i, size_t end) const {
    while (i < end && is_space(decode(text_, i).value)) i += decode(text_, i).length;
    return i;
  }

  // Whether the "." at text_[dot] belongs to the word before it rather than ending the sentence
  // that began at `start`; `next` is where the following text starts.
  bool keeps_sentence(size_t start, size_t dot, size_t next) const {
    size_t word = dot;
    while (word > start && !is_space(decode_before(text_, word).value)) word -= decode_before(text_, word).length;
    const bool sentence_start = word == start;
    while (word < dot && (is_opener(decode(text_, word).value) || decode(text_, word).value == 0xBF ||
                          decode(text_, word).value == 0xA1))
      word += decode(text_, word).length;
    const std::string_view w = text_.substr(word, dot - word);
    if (w.empty()) return false;
    const bool digit_follows = is_digit(decode(text_, next).value);
    for (const Abbreviations* list : {english_ ? &kEnglish : nullptr, spanish_ ? &kSpanish : nullptr}) {
      if (list == nullptr) continue;
      if (contains(list->always, w) || (digit_follows && contains(list->before_digit, w))) return true;
    }
    const CodePoint first = decode(w, 0);
    if (first.length == w.size() && is_upper(first.value)) return true;  // an initial
    if (is_dotted_acronym(w)) return true;
    // A list number opening the sentence: "1.", "IV.", "b.".
    if (sentence_start && (w.find_first_not_of("0123456789") == std::string_view::npos || is_roman_numeral(w) ||
                           (w.size() == 1 && w[0] >= 'a' && w[0] <= 'z')))
      return true;
    return false;
  }

  std::string_view text_;
  std::vector<SentenceSpan>* out_;
  bool english_, spanish_;
};

}  // namespace

void split_sentences(std::string_view text, std::string_view language, std::vector<SentenceSpan>* out) {
  Splitter(text, language, out).run();
}

}  // namespace pmt
