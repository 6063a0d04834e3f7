// Strict UTF-8 validation (RFC 3629): the checks SentencePiece does not make, so that a bad
// line is reported instead of being tokenized into replacement characters.
#pragma once

#include <cstddef>
#include <string_view>

namespace pmt::rt {

// True when `text` is well-formed UTF-8: no stray continuation bytes, no truncated sequences,
// no overlong encodings, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. Otherwise
// false with *error_offset (if not null) set to the byte offset of the first bad sequence.
bool valid_utf8(std::string_view text, size_t* error_offset = nullptr);

// The length in bytes of the well-formed character that starts `text` (1 to 4), or 0 when it
// is malformed or `text` is empty. SentencePiece accepts exactly these characters too.
size_t utf8_char_length(std::string_view text);

}  // namespace pmt::rt
