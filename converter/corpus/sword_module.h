// Reading Debian's SWORD Bible modules through `mod2imp` (libsword-utils), whose "IMP" dump is
// one "$$$<key>" line per entry followed by the entry's raw OSIS markup.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pmt::corpus {

// One entry of an IMP dump: the key as mod2imp prints it ("Genesis 1:1", "I Samuel 24:1",
// "Genesis 0:0" for introductions, "[ Module Heading ]") and its OSIS body. The views point into
// the dump passed to parse_imp.
struct ImpEntry {
  std::string_view key;
  std::string_view osis;
};

// Splits an IMP dump into entries, in dump order. A multi-line body keeps its inner newlines
// (the OSIS stripper turns them into spaces); the line ending before the next key is dropped.
std::vector<ImpEntry> parse_imp(std::string_view dump);

// A verse reference parsed from an IMP key "<book> <chapter>:<verse>"; the book name may
// contain spaces and digits ("I Samuel", "Song of Solomon").
struct VerseRef {
  std::string_view book;
  int chapter = 0;
  int verse = 0;
};

// False for keys that are not "<book> <chapter>:<verse>" with chapter and verse >= 1 (module,
// testament, book and chapter headings).
bool parse_verse_ref(std::string_view key, VerseRef* out);

// Runs `mod2imp <module>` and returns its whole output. On failure returns false with a message
// (module not installed, mod2imp missing). `module` must be a plain SWORD module name
// (letters and digits only) since it is passed through the shell.
bool dump_sword_module(const std::string& module, std::string* dump, std::string* error);

}  // namespace pmt::corpus
