#include "corpus/utf8.h"

namespace pmt::text {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Decodes the code point starting at s[*pos] and advances *pos past it.
char32_t next_code_point(std::string_view s, size_t* pos) {
  const auto lead = static_cast<unsigned char>(s[*pos]);
  int extra;
  char32_t c;
  if (lead < 0x80) {
    ++*pos;
    return lead;
  } else if (lead >= 0xC2 && lead <= 0xDF) {
    extra = 1;
    c = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    extra = 2;
    c = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    extra = 3;
    c = lead & 0x07;
  } else {
    ++*pos;
    return kReplacement;
  }
  if (*pos + extra >= s.size()) {  // truncated at the end
    ++*pos;
    return kReplacement;
  }
  for (int k = 1; k <= extra; ++k) {
    const auto b = static_cast<unsigned char>(s[*pos + k]);
    if ((b & 0xC0) != 0x80) {
      ++*pos;
      return kReplacement;
    }
    c = (c << 6) | (b & 0x3F);
  }
  // Overlong 3/4-byte forms, surrogates and values past U+10FFFF are malformed.
  const bool bad = (extra == 2 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) ||
                   (extra == 3 && (c < 0x10000 || c > 0x10FFFF));
  if (bad) {
    ++*pos;
    return kReplacement;
  }
  *pos += extra + 1;
  return c;
}

}  // namespace

std::u32string decode_utf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) out.push_back(next_code_point(s, &pos));
  return out;
}

std::string encode_utf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    // A malformed sequence advances by one byte; a real U+FFFD takes its three.
    if (next_code_point(s, &pos) == kReplacement && pos - start != 3) return false;
  }
  return true;
}

size_t length_in_code_points(std::string_view s) {
  size_t n = 0;
  for (size_t pos = 0; pos < s.size(); ++n) next_code_point(s, &pos);
  return n;
}

bool is_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::string_view> split_on_space(std::string_view s) {
  std::vector<std::string_view> fields;
  size_t start = std::string_view::npos;
  for (size_t pos = 0; pos < s.size();) {
    const size_t here = pos;
    const bool space = is_space(next_code_point(s, &pos));
    if (space && start != std::string_view::npos) {
      fields.push_back(s.substr(start, here - start));
      start = std::string_view::npos;
    } else if (!space && start == std::string_view::npos) {
      start = here;
    }
  }
  if (start != std::string_view::npos) fields.push_back(s.substr(start));
  return fields;
}

}  // namespace pmt::text
