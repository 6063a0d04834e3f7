#include "utf8.h"

namespace pmt::rt {

size_t utf8_char_length(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  if (n == 0) return 0;
  const unsigned char c = s[0];
  if (c < 0x80) return 1;
  // Lead byte: sequence length and the allowed range of the second byte (which rules out
  // overlong forms, surrogates and code points above U+10FFFF, as in RFC 3629's table).
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (len > n || s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < len; ++k)
    if ((s[k] & 0xC0) != 0x80) return 0;
  return len;
}

bool valid_utf8(std::string_view text, size_t* error_offset) {
  for (size_t i = 0; i < text.size();) {
    const size_t len = utf8_char_length(text.substr(i));
    if (len == 0) {
      if (error_offset != nullptr) *error_offset = i;
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace pmt::rt
