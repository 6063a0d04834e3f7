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

TEST_CASE("one-letter pieces: exactly one cased letter (Latin, Greek, Cyrillic)") {
  for (const char* yes : {"a", "Z", "ñ", "É", "ł", "ω", "Ж"}) {
    CAPTURE(yes);
    CHECK(is_one_letter(yes));
  }
  // Empty, two letters, a letter and a mark, digits, punctuation, a space, uncased letters.
  for (const char* no : {"", "ab", "ña", "a.", "7", ".", "¿", " ", " a", "\xE2\x96\x81", "中"}) {
    CAPTURE(no);
    CHECK_FALSE(is_one_letter(no));
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
