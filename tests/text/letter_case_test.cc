// Letter case of the text layer against glibc's towupper/towlower (C.UTF-8), and the ALL-CAPS
// rules on hand-made sentences.
#include <doctest/doctest.h>

#include <clocale>
#include <cwctype>
#include <string>

#include "letter_case.h"

namespace pmt::rt {
namespace {

size_t utf8_length(uint32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

// The mappings the runtime leaves out on purpose: the other case is not one code point of the
// same UTF-8 length, or (µ) it is a letter of another script.
bool left_out(uint32_t c) { return c == 0xB5 || c == 0xDF || c == 0x130 || c == 0x131 || c == 0x17F; }

std::string show(const LetterRun& r) {
  return std::to_string(r.letter) + "x" + std::to_string(r.count) + (r.whole ? " whole" : "");
}

}  // namespace

TEST_CASE("case mappings equal glibc's on Latin-1, Latin Extended-A, Greek and Cyrillic") {
  REQUIRE(std::setlocale(LC_CTYPE, "C.UTF-8") != nullptr);
  const uint32_t ranges[][2] = {{0x0, 0x17F}, {0x386, 0x3CE}, {0x400, 0x45F}};
  int checked = 0;
  for (const auto& r : ranges) {
    for (uint32_t c = r[0]; c <= r[1]; ++c) {
      CAPTURE(c);
      const auto upper = static_cast<uint32_t>(std::towupper(static_cast<wint_t>(c)));
      const auto lower = static_cast<uint32_t>(std::towlower(static_cast<wint_t>(c)));
      const bool keep_upper = left_out(c) || left_out(upper) || utf8_length(upper) != utf8_length(c);
      const bool keep_lower = left_out(c) || left_out(lower) || utf8_length(lower) != utf8_length(c);
      CHECK(to_upper(c) == (keep_upper ? c : upper));
      CHECK(to_lower(c) == (keep_lower ? c : lower));
      CHECK(is_upper(c) == (c == 0x130 || (!keep_lower && lower != c)));
      ++checked;
    }
  }
  CHECK(checked == 0x180 + 0x49 + 0x60);
  std::setlocale(LC_CTYPE, "C");
}

TEST_CASE("the letter run that ends a piece: one-letter pieces, runs across case, byte pieces") {
  // One cased letter (Latin, Greek, Cyrillic): a one-letter piece.
  CHECK(show(trailing_letter_run("a")) == show({'a', 1, true}));
  CHECK(show(trailing_letter_run("Z")) == show({'z', 1, true}));
  CHECK(show(trailing_letter_run("ñ")) == show({0xF1, 1, true}));
  CHECK(show(trailing_letter_run("É")) == show({0xE9, 1, true}));
  CHECK(show(trailing_letter_run("ł")) == show({0x142, 1, true}));
  CHECK(show(trailing_letter_run("ω")) == show({0x3C9, 1, true}));
  CHECK(show(trailing_letter_run("Ж")) == show({0x436, 1, true}));
  // Runs, case folded; a word start (leading space) or other letters before the run.
  CHECK(show(trailing_letter_run("arr")) == show({'r', 2, false}));
  CHECK(show(trailing_letter_run("Rr")) == show({'r', 2, true}));
  CHECK(show(trailing_letter_run(" r")) == show({'r', 1, false}));
  CHECK(show(trailing_letter_run(" rrr")) == show({'r', 3, false}));
  CHECK(show(trailing_letter_run("ña")) == show({'a', 1, false}));
  CHECK(show(trailing_letter_run("ÉéÉ")) == show({0xE9, 3, true}));
  // No letter at the end: empty, digits, punctuation, uncased letters, the word-boundary mark.
  for (const char* none : {"", "7", "a.", "¿", " ", "中", "\xE2\x96\x81", "rr7"}) {
    CAPTURE(none);
    CHECK(show(trailing_letter_run(none)) == show({0, 0, false}));
  }
  // Byte-fallback pieces (a lone lead or continuation byte) are no letter and end a run.
  for (const char* bytes : {"\xC3", "\xB1", "r\xC3", "\xE2\x96"}) {
    CAPTURE(bytes);
    CHECK(show(trailing_letter_run(bytes)) == show({0, 0, false}));
  }
  CHECK(show(trailing_letter_run("\xB1r")) == show({'r', 1, false}));
}

TEST_CASE("the letter run that begins a piece: none at a word start") {
  CHECK(show(leading_letter_run("r")) == show({'r', 1, true}));
  CHECK(show(leading_letter_run("rRa")) == show({'r', 2, false}));
  CHECK(show(leading_letter_run("Ññ")) == show({0xF1, 2, true}));
  CHECK(show(leading_letter_run("ro")) == show({'r', 1, false}));
  for (const char* none : {"", " rr", "\xE2\x96\x81r", "7r", ".", "\xC3", "\xB1r"}) {
    CAPTURE(none);
    CHECK(show(leading_letter_run(none)) == show({0, 0, false}));
  }
}

TEST_CASE("which sentences are ALL-CAPS") {
  CHECK(is_all_caps("SAVE YOUR WORK BEFORE CLOSING."));
  CHECK(is_all_caps("READ THE MANUAL (v2)."));
  CHECK(is_all_caps("¿DÓNDE ESTÁ LA ESTACIÓN?"));
  CHECK(is_all_caps("STOP"));
  CHECK_FALSE(is_all_caps("NASA launched a rocket."));
  CHECK_FALSE(is_all_caps("OK."));
  CHECK_FALSE(is_all_caps("USB"));
  CHECK_FALSE(is_all_caps("Save Your Work."));
  CHECK_FALSE(is_all_caps("1234 5678."));
  CHECK_FALSE(is_all_caps(""));
}

TEST_CASE("sentence case keeps offsets, the first letter and the English pronoun I") {
  const auto cased = [](std::string s, std::string_view language = "en") {
    const size_t size = s.size();
    to_sentence_case(s, language);
    CHECK(s.size() == size);
    return s;
  };
  CHECK(cased("SAVE YOUR WORK BEFORE CLOSING.") == "Save your work before closing.");
  CHECK(cased("I'M HERE, AND I THINK I’LL STAY, AM I?") == "I'm here, and I think I’ll stay, am I?");
  CHECK(cased("IT IS MINE: I-95 IS A ROAD TO PI") == "It is mine: I-95 is a road to pi");
  CHECK(cased("«ÁRBOL» Y ÑANDÚ, I", "es") == "«Árbol» y ñandú, i");
  CHECK(cased("3 APPLES") == "3 Apples");
  CHECK(cased("ŁÓDŹ ŽIŽKOV ΑΘΗΝΑ МОСКВА") == "Łódź žižkov αθηνα москва");
}

TEST_CASE("upper case of a translation") {
  std::string s = "¿Dónde está la estación? Año, ñandú, pingüino, ÿ, œ, ß.";
  to_upper_case(s);
  CHECK(s == "¿DÓNDE ESTÁ LA ESTACIÓN? AÑO, ÑANDÚ, PINGÜINO, Ÿ, Œ, ß.");
}

}  // namespace pmt::rt
