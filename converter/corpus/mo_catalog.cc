#include "corpus/mo_catalog.h"

#include <cstdint>

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
    m.source = source;
    m.target = target;
    out->push_back(std::move(m));
  }
  return true;
}

}  // namespace pmt::corpus
