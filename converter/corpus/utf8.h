// UTF-8 helpers shared by corpus preparation and the metrics: code point decoding, lengths in
// code points, and whitespace exactly as Python's str.isspace()/str.split() see it (sacreBLEU
// splits with str.split(), so the metrics must agree with it on every Unicode space).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pmt::text {

// Decodes UTF-8; each malformed or truncated sequence becomes one U+FFFD.
std::u32string decode_utf8(std::string_view s);
std::string encode_utf8(std::u32string_view s);

// True when s is well-formed UTF-8 (what decode_utf8 reads without a U+FFFD of its own).
bool is_valid_utf8(std::string_view s);

// Number of code points (malformed bytes count as one each, as decode_utf8 does).
size_t length_in_code_points(std::string_view s);

// Python's str.isspace(): ASCII \t\n\v\f\r and space, U+001C..U+001F, U+0085, U+00A0, U+1680,
// U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_space(char32_t c);

// Python's str.split() with no argument: runs of is_space() separate fields, no empty fields.
// The views point into s.
std::vector<std::string_view> split_on_space(std::string_view s);

}  // namespace pmt::text
