// The OSIS stripper on the real Debian SWORD modules (installed by scripts/install-deps.sh):
// facts checked by reading the modules' markup, verse by verse.
#include <doctest/doctest.h>

#include <string>
#include <unordered_map>

#include "corpus/osis_text.h"
#include "corpus/sword_module.h"

using namespace pmt::corpus;

namespace {

// Stripped text of every verse of a module, by key.
std::unordered_map<std::string, std::string> read_module(const std::string& name, std::string* dump) {
  std::string error;
  REQUIRE_MESSAGE(dump_sword_module(name, dump, &error), error);
  std::unordered_map<std::string, std::string> verses;
  for (const ImpEntry& e : parse_imp(*dump)) {
    VerseRef ref;
    if (parse_verse_ref(e.key, &ref)) verses.emplace(std::string(e.key), osis_to_text(e.osis));
  }
  return verses;
}

// Markup or Strong's numbers surviving the stripper.
bool looks_clean(const std::string& s) {
  return s.find_first_of("<>\\") == std::string::npos && s.find("strong:") == std::string::npos &&
         s.find("lemma") == std::string::npos;
}

}  // namespace

TEST_CASE("RV1909: verse list, superscriptions, glued words, no markup left") {
  std::string dump;
  const auto rv = read_module("spaRV1909eb", &dump);
  CHECK(rv.size() == 31102);
  int unclean = 0, empty = 0;
  for (const auto& [key, text] : rv) {
    unclean += !looks_clean(text);
    empty += text.empty();
  }
  CHECK(unclean == 0);
  CHECK(empty == 18);
  CHECK(rv.at("Psalms 3:1").starts_with("Salmo de David, cuando huía de delante de Absalom su hijo."));
  CHECK(rv.at("Romans 16:27").find("enviada por medio de Febe") != std::string::npos);
  CHECK(rv.at("Genesis 1:1") == "EN el principio crió Dios los cielos y la tierra.");
}

TEST_CASE("WEB: Psalm titles kept, speakers and glossary dropped") {
  std::string dump;
  const auto web = read_module("engWEB2015eb", &dump);
  int unclean = 0;
  for (const auto& [key, text] : web) unclean += !looks_clean(text);
  CHECK(unclean == 0);
  CHECK(web.at("Psalms 3:1").starts_with("A Psalm by David, when he fled from Absalom his son. Yahweh,"));
  CHECK(web.at("Song of Solomon 1:2") == "Let him kiss me with the kisses of his mouth; for your love is better than wine.");
  CHECK(web.at("Revelation of John 22:21") == "The grace of the Lord Jesus Christ be with all the saints. Amen.");
  CHECK(web.at("Genesis 1:1") == "In the beginning, God created the heavens and the earth.");
}
