// The text normalization shared by training and every program that runs a model: it is compiled
// into the SentencePiece model (normalizer_spec.precompiled_charsmap), which travels inside the
// .pmt file, so the runtime applies exactly what the trainer saw with no code of its own.
//
// Rules: SentencePiece's nmt_nfkc table (NFKC, control characters removed, Unicode spaces as
// U+0020), then one form for quotes, apostrophes and dashes, so keyboard input and typeset text
// read alike:
//   ' for ‘ ’ ‚ ‛ ′ ‵ ` ´      " for “ ” „ ‟ ″ 〝 〞      - for ‐ ‑ ‒ – −      — for ―
// Spanish « » ‹ › stay: they are what the Spanish side writes, not variants of ".
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace pmt::corpus {

// The punctuation rules above, each a code point and its replacement.
const std::vector<std::pair<char32_t, char32_t>>& punctuation_rules();

// Rewrites SentencePiece's nmt_nfkc table (as `spm_normalize --decompile` prints it: "<hex code
// points>\t<hex code points>\t# comment" lines) with the punctuation rules: a rule whose source is
// one of ours is replaced by ours, and our replacements are applied to every rule's output.
// False with *error on a malformed line.
bool merge_normalization_rules(const std::string& nmt_nfkc_tsv, std::string* merged, std::string* error);

// Writes the merged table to `path`, reading nmt_nfkc through `spm_normalize` (Debian package
// sentencepiece).
bool write_normalization_tsv(const std::filesystem::path& path, std::string* error);

}  // namespace pmt::corpus
