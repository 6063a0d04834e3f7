#include "corpus/mo_catalog.h"

#include <cctype>
#include <cstdint>
#include <string>

#include "corpus/utf8.h"

namespace pmt::corpus {
namespace {

constexpr uint32_t kMagic = 0x950412de;
constexpr uint32_t kMagicSwapped = 0xde120495;

uint32_t read_u32(std::string_view bytes, size_t offset, bool swapped) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t b = static_cast<unsigned char>(bytes[offset + i]);
    v |= swapped ? b << (8 * (3 - i)) : b << (8 * i);
  }
  return v;
}

enum class Charset { kUtf8, kLatin1, kLatin9 };

// The charset= of the header's Content-Type, upper-cased; empty when there is none.
std::string declared_charset(std::string_view header) {
  const size_t at = header.find("charset=");
  if (at == std::string_view::npos) return {};
  std::string name;
  for (size_t i = at + 8; i < header.size(); ++i) {
    const char c = header[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') break;
    name.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return name;
}

bool charset_of(std::string_view header, Charset* charset, std::string* error) {
  const std::string name = declared_charset(header);
  // "CHARSET" is the placeholder a template leaves when nobody filled it in.
  if (name.empty() || name == "UTF-8" || name == "UTF8" || name == "ASCII" || name == "US-ASCII" ||
      name == "CHARSET") {
    *charset = Charset::kUtf8;
  } else if (name == "ISO-8859-1" || name == "ISO8859-1" || name == "LATIN1") {
    *charset = Charset::kLatin1;
  } else if (name == "ISO-8859-15" || name == "ISO8859-15" || name == "LATIN9") {
    *charset = Charset::kLatin9;
  } else {
    *error = "gettext catalog in charset " + name + ", which is not read";
    return false;
  }
  return true;
}

// ISO-8859-15 is ISO-8859-1 but for eight code points (the euro sign and six letters).
char32_t latin9_code_point(unsigned char b) {
  switch (b) {
    case 0xA4: return 0x20AC;
    case 0xA6: return 0x0160;
    case 0xA8: return 0x0161;
    case 0xB4: return 0x017D;
    case 0xB8: return 0x017E;
    case 0xBC: return 0x0152;
    case 0xBD: return 0x0153;
    case 0xBE: return 0x0178;
    default: return b;
  }
}

// The string in UTF-8; false when a UTF-8 catalog's string is not valid UTF-8.
bool to_utf8(std::string_view s, Charset charset, std::string* out) {
  if (charset == Charset::kUtf8) {
    out->assign(s);
    return text::is_valid_utf8(s);
  }
  std::u32string cps;
  cps.reserve(s.size());
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    cps.push_back(charset == Charset::kLatin9 ? latin9_code_point(b) : b);
  }
  *out = text::encode_utf8(cps);
  return true;
}

}  // namespace

bool parse_mo(std::string_view bytes, std::vector<MoMessage>* out, std::string* error) {
  if (bytes.size() < 20) {
    *error = "not a gettext catalog: " + std::to_string(bytes.size()) + " bytes";
    return false;
  }
  const uint32_t magic = read_u32(bytes, 0, false);
  if (magic != kMagic && magic != kMagicSwapped) {
    *error = "not a gettext catalog: bad magic number";
    return false;
  }
  const bool swapped = magic == kMagicSwapped;
  const uint64_t count = read_u32(bytes, 8, swapped);
  const uint64_t sources = read_u32(bytes, 12, swapped), targets = read_u32(bytes, 16, swapped);
  if (sources + count * 8 > bytes.size() || targets + count * 8 > bytes.size()) {
    *error = "gettext catalog truncated: string tables past the end of the file";
    return false;
  }
  // Entry i of a table: (length, offset) of a NUL-terminated string; the length excludes the NUL.
  const auto string_at = [&](uint64_t table, uint64_t i, std::string_view* s) {
    const uint64_t length = read_u32(bytes, table + 8 * i, swapped);
    const uint64_t offset = read_u32(bytes, table + 8 * i + 4, swapped);
    if (offset + length > bytes.size()) return false;
    *s = bytes.substr(offset, length);
    return true;
  };
  Charset charset = Charset::kUtf8;
  for (uint64_t i = 0; i < count; ++i) {  // the header entry is the one with an empty msgid
    std::string_view source, header;
    if (string_at(sources, i, &source) && source.empty() && string_at(targets, i, &header)) {
      if (!charset_of(header, &charset, error)) return false;
      break;
    }
  }
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view source, target;
    if (!string_at(sources, i, &source) || !string_at(targets, i, &target)) {
      *error = "gettext catalog truncated: string " + std::to_string(i) + " past the end of the file";
      return false;
    }
    MoMessage m;
    if (const size_t eot = source.find('\x04'); eot != std::string_view::npos) {  // msgctxt EOT msgid
      m.context = source.substr(0, eot);
      source.remove_prefix(eot + 1);
    }
    source = source.substr(0, source.find('\0'));  // drop msgid_plural
    target = target.substr(0, target.find('\0'));  // keep msgstr[0]
    if (source.empty() || target.empty()) continue;
    std::string context;
    if (!to_utf8(source, charset, &m.source) || !to_utf8(target, charset, &m.target) ||
        !to_utf8(m.context, charset, &context)) {
      continue;
    }
    m.context = std::move(context);
    out->push_back(std::move(m));
  }
  return true;
}

}  // namespace pmt::corpus
