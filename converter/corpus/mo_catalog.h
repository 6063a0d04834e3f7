// Reading compiled gettext catalogs (.mo files, GNU gettext's binary format): the pairs of
// original (English) and translated strings that `msgunfmt` would print.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pmt::corpus {

// One message of a catalog. Plural messages keep the singular pair only (msgid / msgstr[0]):
// the plural forms of Spanish and English do not line up one to one.
struct MoMessage {
  std::string context;  // msgctxt, empty when none
  std::string source;   // msgid
  std::string target;   // msgstr (msgstr[0] for plurals)
};

// Parses the bytes of a .mo file of either byte order. The header entry (empty msgid) and
// untranslated entries are skipped. Strings come out in UTF-8: the header's charset names
// the catalog's encoding, and ISO-8859-1 and ISO-8859-15 catalogs (46 of Debian's 1,846
// Spanish ones) are converted; ASCII, UTF-8 and an undeclared charset are read as UTF-8, and a
// message that is then not valid UTF-8 is skipped. False with *error when the bytes are not a
// well-formed catalog (bad magic, a table or string outside the file) or the charset is
// another one.
bool parse_mo(std::string_view bytes, std::vector<MoMessage>* out, std::string* error);

}  // namespace pmt::corpus
