// Line-aligned text files, as the corpus writes them and the trainer and corpus sources read them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pmt {

// Empty when `text` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF),
// otherwise a description of the first bad byte.
std::string check_utf8(std::string_view text);

// Reads a text file as lines ('\n' separated, a final line without '\n' counts, '\r' before
// '\n' is dropped), checking UTF-8 on the way. Replaces *lines. Returns an error message naming
// the file (and line), or empty.
std::string read_lines(const std::string& path, std::vector<std::string>* lines);

}  // namespace pmt
