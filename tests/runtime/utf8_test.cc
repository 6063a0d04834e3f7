// The UTF-8 validator on hand-picked sequences (RFC 3629, section 4 and its examples).
#include <doctest/doctest.h>

#include <string>

#include "utf8.h"

namespace pmt::rt {
namespace {

TEST_CASE("valid UTF-8 is accepted") {
  for (const std::string& s : {std::string(), std::string("plain ASCII"), std::string("a\0b", 3),
                              std::string("\xC3\xB1"),              // U+00F1 n with tilde
                              std::string("\xE2\x96\x81"),          // U+2581
                              std::string("\xED\x9F\xBF"),          // U+D7FF, last before surrogates
                              std::string("\xEE\x80\x80"),          // U+E000, first after them
                              std::string("\xF0\x90\x80\x80"),      // U+10000
                              std::string("\xF4\x8F\xBF\xBF"),      // U+10FFFF, the last code point
                              std::string("Jes\xC3\xBAs llor\xC3\xB3.")}) {
    CAPTURE(s);
    CHECK(valid_utf8(s));
  }
}

TEST_CASE("malformed UTF-8 is rejected at the offending byte") {
  struct Case {
    std::string text;
    size_t offset;
  };
  for (const Case& c : {Case{"\x80", 0},                    // stray continuation byte
                        Case{"ab\xC3", 2},                  // truncated 2-byte sequence
                        Case{"\xC3(", 0},                   // bad continuation
                        Case{"\xC0\xAF", 0},                // overlong '/'
                        Case{"\xC1\xBF", 0},                // overlong
                        Case{"\xE0\x80\xAF", 0},            // overlong 3-byte
                        Case{"x\xED\xA0\x80", 1},           // U+D800, a surrogate
                        Case{"\xF0\x80\x80\xAF", 0},        // overlong 4-byte
                        Case{"\xF4\x90\x80\x80", 0},        // U+110000, beyond Unicode
                        Case{"\xF5\x80\x80\x80", 0},        // invalid lead byte
                        Case{"\xFF", 0},
                        Case{"ok \xE2\x96", 3}}) {          // truncated at the end
    CAPTURE(c.text);
    size_t offset = 99;
    CHECK_FALSE(valid_utf8(c.text, &offset));
    CHECK(offset == c.offset);
  }
}

}  // namespace
}  // namespace pmt::rt
