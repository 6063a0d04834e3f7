// Letter case for the text layer: an ALL-CAPS sentence is translated in sentence case and its
// translation given back in capitals, because the models see capitals-only text rarely in
// training and translate it far worse than the same words in normal case.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pmt::rt {

// Simple one-to-one case mappings of the cased letters of Latin-1, Latin Extended-A, basic
// Greek and Cyrillic (the letters of English, Spanish and most European languages); any other
// code point maps to itself. Each pair has the same UTF-8 length, so mapping a string keeps
// every byte offset. Letters whose other case is not one code point of the same length (ß, ı,
// İ, ſ, µ) map to themselves.
uint32_t to_upper(uint32_t c);
uint32_t to_lower(uint32_t c);
bool is_upper(uint32_t c);  // a capital letter, İ included
bool is_lower(uint32_t c);

// The run of one letter (is_upper or is_lower, case folded by to_lower) that ends or begins
// `text`: trailing "arr" -> {'r', 2, false}, "Rr" -> {'r', 2, true}, "ab." and "" -> {0, 0,
// false}; leading "rra" -> {'r', 2, false}, " rr" (a word start) -> {0, 0, false}. whole: the
// run is all of `text`, so {c, 1, true} is a one-letter text, the vocabulary pieces that
// TranslateOptions::letter_penalty applies to when they continue a word. A byte sequence that
// is not whole UTF-8 (a byte-fallback piece) ends any run and is no letter.
struct LetterRun {
  uint32_t letter = 0;
  size_t count = 0;
  bool whole = false;
};
LetterRun leading_letter_run(std::string_view text);
LetterRun trailing_letter_run(std::string_view text);

// Whether a sentence (valid UTF-8) is written in capitals: at least 4 capital letters and at
// most one small letter for every 10 capitals ("READ THE MANUAL (v2)." is; "NASA launched a
// rocket." and "OK." are not).
bool is_all_caps(std::string_view sentence);

// In place, on valid UTF-8: every letter small but the first; with `language` "en", the
// pronoun I ("i", "i'm", "i’ll") stays a capital.
void to_sentence_case(std::string& text, std::string_view language);
// In place, on valid UTF-8: every letter a capital.
void to_upper_case(std::string& text);

}  // namespace pmt::rt
