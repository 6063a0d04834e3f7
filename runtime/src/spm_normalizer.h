// SentencePiece's text normalization, as its Normalizer applies it before encoding: the
// precompiled character map (a Darts-clone double-array trie of byte sequences, longest match
// first, each mapped to a NUL-terminated replacement), then the whitespace rules (leading,
// trailing and repeated spaces removed, a space added in front, spaces written as U+2581).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spm_model.h"

namespace pmt::rt {

class SpmNormalizer {
 public:
  // Copies the charsmap and rules of `model`. Empty string, or why the charsmap is malformed.
  std::string load(const SpmModel& model);

  // Appends the normalized form of `input` to *out (cleared first).
  void normalize(std::string_view input, std::string* out) const;

 private:
  // The replacement of the longest rule matching a prefix of `input` (or its first character,
  // U+FFFD for a malformed byte), and how many bytes of `input` it consumes (at least 1).
  std::pair<std::string_view, size_t> normalize_prefix(std::string_view input) const;
  // The longest key of the trie that prefixes `input`: its length (0: none) and value.
  std::pair<size_t, uint32_t> longest_match(std::string_view input) const;

  std::vector<uint32_t> units_;  // the double array
  std::string replacements_;     // NUL-terminated strings, indexed by the trie's values
  bool add_dummy_prefix_ = true, remove_extra_whitespaces_ = true, escape_whitespaces_ = true;
};

}  // namespace pmt::rt
