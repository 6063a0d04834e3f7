#include "letter_case.h"

#include "utf8.h"

namespace pmt::rt {
namespace {

// Latin Extended-A pairs a capital with the next code point, from an even one in
// U+0100..U+0137 and U+014A..U+0177, from an odd one in U+0139..U+0148 and U+0179..U+017E.
bool latin_a_capital_first(uint32_t c, uint32_t* capital) {
  const bool even_pairs = (c >= 0x100 && c <= 0x12F) || (c >= 0x132 && c <= 0x137) || (c >= 0x14A && c <= 0x177);
  const bool odd_pairs = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
  if (!even_pairs && !odd_pairs) return false;
  *capital = (c % 2 == 0) == even_pairs ? c : c - 1;
  return true;
}

// The code point at text[i] of valid UTF-8 and its length.
uint32_t decode(std::string_view text, size_t i, size_t* length) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(text[i + k])); };
  const uint32_t b0 = b(0);
  if (b0 < 0x80) return *length = 1, b0;
  if (b0 < 0xE0) return *length = 2, ((b0 & 0x1F) << 6) | (b(1) & 0x3F);
  if (b0 < 0xF0) return *length = 3, ((b0 & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  return *length = 4, ((b0 & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

// Writes c over text[i..] where a code point of the same UTF-8 length was (the mappings keep
// lengths, so only 1- and 2-byte forms occur).
void encode_over(std::string& text, size_t i, uint32_t c) {
  if (c < 0x80) {
    text[i] = static_cast<char>(c);
  } else {
    text[i] = static_cast<char>(0xC0 | (c >> 6));
    text[i + 1] = static_cast<char>(0x80 | (c & 0x3F));
  }
}

template <typename Map>
void map_letters(std::string& text, Map map) {
  for (size_t i = 0, n; i < text.size(); i += n) {
    const uint32_t c = decode(text, i, &n);
    const uint32_t m = map(i, n, c);
    if (m != c) encode_over(text, i, m);
  }
}

bool is_word_char(uint32_t c) { return is_upper(c) || is_lower(c) || (c >= '0' && c <= '9'); }

// Whether the code point after text[i] (of length n), or the one ending at text[i - 1], is a
// letter or digit.
bool word_char_after(std::string_view text, size_t i, size_t n) {
  size_t m;
  return i + n < text.size() && is_word_char(decode(text, i + n, &m));
}
bool word_char_before(std::string_view text, size_t i) {
  if (i == 0) return false;
  size_t start = i - 1;
  while (start > 0 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
  size_t m;
  return is_word_char(decode(text, start, &m));
}

// The letter at text[i], case folded, or 0 for any other code point; *n its length. A lone
// continuation byte or a cut sequence (a byte-fallback piece) is one byte and no letter.
uint32_t folded_letter_at(std::string_view text, size_t i, size_t* n) {
  if (utf8_char_length(text.substr(i)) == 0) return *n = 1, 0;
  const uint32_t c = decode(text, i, n);
  return is_upper(c) || is_lower(c) ? to_lower(c) : 0;
}

}  // namespace

uint32_t to_upper(uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 0x20;
  if (c < 0xE0) return c;
  if (c <= 0xFE) return c == 0xF7 ? c : c - 0x20;  // Latin-1 small letters, ÷ excepted
  if (c == 0xFF) return 0x178;                     // ÿ
  if (uint32_t capital; latin_a_capital_first(c, &capital)) return capital;
  if ((c >= 0x3B1 && c <= 0x3CB && c != 0x3C2)) return c - 0x20;  // Greek
  if (c == 0x3C2) return 0x3A3;                                     // final sigma
  if (c == 0x3AC) return 0x386;
  if (c >= 0x3AD && c <= 0x3AF) return c - 0x25;
  if (c == 0x3CC) return 0x38C;
  if (c == 0x3CD || c == 0x3CE) return c - 0x3F;
  if (c >= 0x430 && c <= 0x44F) return c - 0x20;  // Cyrillic
  if (c >= 0x450 && c <= 0x45F) return c - 0x50;
  return c;
}

uint32_t to_lower(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 0x20;
  if (c < 0xC0) return c;
  if (c <= 0xDE) return c == 0xD7 ? c : c + 0x20;  // Latin-1 capitals, × excepted
  if (c == 0x178) return 0xFF;                     // Ÿ
  if (uint32_t capital; latin_a_capital_first(c, &capital)) return capital + 1;
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 0x20;  // Greek
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 0x25;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 0x3F;
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;  // Cyrillic
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  return c;
}

bool is_upper(uint32_t c) { return to_lower(c) != c || c == 0x130; }
bool is_lower(uint32_t c) { return to_upper(c) != c; }

LetterRun leading_letter_run(std::string_view text) {
  LetterRun run;
  size_t i = 0;
  for (size_t n; i < text.size(); i += n) {
    const uint32_t c = folded_letter_at(text, i, &n);
    if (c == 0 || (run.count > 0 && c != run.letter)) break;
    run.letter = c;
    ++run.count;
  }
  run.whole = run.count > 0 && i == text.size();
  return run;
}

LetterRun trailing_letter_run(std::string_view text) {
  LetterRun run;
  size_t start = 0;  // where the current run begins
  for (size_t i = 0, n; i < text.size(); i += n) {
    const uint32_t c = folded_letter_at(text, i, &n);
    if (c == 0) {
      run = {};
    } else if (c == run.letter) {
      ++run.count;
    } else {
      run = {c, 1, false};
      start = i;
    }
  }
  run.whole = run.count > 0 && start == 0;
  return run;
}

bool is_all_caps(std::string_view sentence) {
  size_t upper = 0, lower = 0;
  for (size_t i = 0, n; i < sentence.size(); i += n) {
    const uint32_t c = decode(sentence, i, &n);
    upper += is_upper(c) ? 1 : 0;
    lower += is_lower(c) ? 1 : 0;
  }
  return upper >= 4 && lower * 10 <= upper;
}

void to_sentence_case(std::string& text, std::string_view language) {
  bool first = true;
  const bool english = language == "en";
  map_letters(text, [&](size_t i, size_t n, uint32_t c) {
    if (!is_upper(c) && !is_lower(c)) return c;
    if (first) {
      first = false;
      return to_upper(c);
    }
    // The pronoun: "I" with no letter or digit on either side ("I'm" and "I’ll" included).
    if (english && (c == 'I' || c == 'i') && !word_char_after(text, i, n) && !word_char_before(text, i)) {
      return uint32_t{'I'};
    }
    return to_lower(c);
  });
}

void to_upper_case(std::string& text) {
  map_letters(text, [](size_t, size_t, uint32_t c) { return to_upper(c); });
}

}  // namespace pmt::rt
