// The .mo reader against catalogs assembled byte by byte here from the format's definition
// (GNU gettext manual, "The Format of GNU MO Files").
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "corpus/mo_catalog.h"

namespace {

void put_u32(std::string* out, uint32_t v, bool big_endian) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * (big_endian ? 3 - i : i))));
}

// A catalog of (original, translation) strings, in the given order, without a hash table.
std::string make_mo(const std::vector<std::pair<std::string, std::string>>& entries, bool big_endian) {
  const uint32_t n = static_cast<uint32_t>(entries.size());
  const uint32_t originals = 28, translations = originals + 8 * n, strings = translations + 8 * n;
  std::string head, data;
  put_u32(&head, 0x950412de, big_endian);
  put_u32(&head, 0, big_endian);
  put_u32(&head, n, big_endian);
  put_u32(&head, originals, big_endian);
  put_u32(&head, translations, big_endian);
  put_u32(&head, 0, big_endian);  // hash table size
  put_u32(&head, 0, big_endian);
  std::string tables[2];
  for (int t = 0; t < 2; ++t) {
    for (const auto& e : entries) {
      const std::string& s = t == 0 ? e.first : e.second;
      put_u32(&tables[t], static_cast<uint32_t>(s.size()), big_endian);
      put_u32(&tables[t], strings + static_cast<uint32_t>(data.size()), big_endian);
      data += s;
      data.push_back('\0');
    }
  }
  return head + tables[0] + tables[1] + data;
}

const std::vector<std::pair<std::string, std::string>> kEntries = {
    {"", "Content-Type: text/plain; charset=UTF-8\n"},            // header: skipped
    {"Open file", "Abrir archivo"},
    {std::string("menu\x04Quit"), "Salir"},                        // msgctxt EOT msgid
    {std::string("%d file\0%d files", 16), std::string("%d archivo\0%d archivos", 22)},  // plural
    {"Untranslated", ""},
};

}  // namespace

TEST_CASE("a catalog of either byte order gives its messages, context and singular forms") {
  for (const bool big_endian : {false, true}) {
    std::vector<pmt::corpus::MoMessage> messages;
    std::string error;
    REQUIRE_MESSAGE(pmt::corpus::parse_mo(make_mo(kEntries, big_endian), &messages, &error), error);
    REQUIRE(messages.size() == 3);
    CHECK(messages[0].source == "Open file");
    CHECK(messages[0].target == "Abrir archivo");
    CHECK(messages[0].context.empty());
    CHECK(messages[1].context == "menu");
    CHECK(messages[1].source == "Quit");
    CHECK(messages[1].target == "Salir");
    CHECK(messages[2].source == "%d file");
    CHECK(messages[2].target == "%d archivo");
  }
}

TEST_CASE("bad magic, truncated tables and strings past the end are errors") {
  std::vector<pmt::corpus::MoMessage> messages;
  std::string error;
  CHECK_FALSE(pmt::corpus::parse_mo("short", &messages, &error));
  std::string bytes = make_mo(kEntries, false);
  std::string bad_magic = bytes;
  bad_magic[0] = 'X';
  CHECK_FALSE(pmt::corpus::parse_mo(bad_magic, &messages, &error));
  CHECK(error.find("magic") != std::string::npos);
  CHECK_FALSE(pmt::corpus::parse_mo(bytes.substr(0, 40), &messages, &error));  // tables cut
  CHECK_FALSE(pmt::corpus::parse_mo(bytes.substr(0, bytes.size() - 5), &messages, &error));  // last string cut
  CHECK(error.find("truncated") != std::string::npos);
}

TEST_CASE("ISO-8859-1 and -15 catalogs come out in UTF-8; a UTF-8 catalog's malformed message is skipped") {
  std::vector<pmt::corpus::MoMessage> messages;
  std::string error;
  const std::vector<std::pair<std::string, std::string>> latin1 = {
      {"", "Content-Type: text/plain; charset=ISO-8859-1\n"},
      {"Cancel operation", "Cancelar operaci\xf3n"},
      {"Year", "A\xf1o \xa4"},  // U+00A4 in Latin-1
  };
  REQUIRE_MESSAGE(pmt::corpus::parse_mo(make_mo(latin1, false), &messages, &error), error);
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].target == "Cancelar operaci\u00f3n");
  CHECK(messages[1].target == "A\u00f1o \u00a4");

  messages.clear();
  const std::vector<std::pair<std::string, std::string>> latin9 = {
      {"", "Content-Type: text/plain; charset=iso-8859-15\n"},
      {"Price", "Precio: 5 \xa4, \xbd"},  // euro sign and oe ligature in Latin-9
  };
  REQUIRE_MESSAGE(pmt::corpus::parse_mo(make_mo(latin9, false), &messages, &error), error);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].target == "Precio: 5 \u20ac, \u0153");

  messages.clear();
  const std::vector<std::pair<std::string, std::string>> utf8 = {
      {"", "Content-Type: text/plain; charset=UTF-8\n"},
      {"Expected", "Se esperaba \xab%s\xbb"},  // Latin-1 bytes in a UTF-8 catalog
      {"Replacement", "Car\u00e1cter \ufffd"},    // a real U+FFFD is well-formed
  };
  REQUIRE_MESSAGE(pmt::corpus::parse_mo(make_mo(utf8, false), &messages, &error), error);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].source == "Replacement");

  const std::vector<std::pair<std::string, std::string>> koi8 = {
      {"", "Content-Type: text/plain; charset=KOI8-R\n"}, {"Open", "x"}};
  CHECK_FALSE(pmt::corpus::parse_mo(make_mo(koi8, false), &messages, &error));
  CHECK(error.find("KOI8-R") != std::string::npos);
}
