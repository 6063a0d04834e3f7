// Number copies (corpus/number_copies.h) on hand-made pairs.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "corpus/number_copies.h"

namespace pmt::corpus {
namespace {

// Digit runs by hand rather than std::regex: GCC 12 with -fsanitize=address warns
// (-Wmaybe-uninitialized) inside libstdc++'s regex automaton, which stopped the sanitizer build.
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::vector<std::string> runs(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!is_digit(s[i])) continue;
    const size_t start = i;
    while (i + 1 < s.size() && is_digit(s[i + 1])) ++i;
    out.push_back(s.substr(start, i + 1 - start));
  }
  return out;
}

// The text with every digit run replaced by '#'.
std::string shape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!is_digit(s[i])) {
      out += s[i];
    } else if (i == 0 || !is_digit(s[i - 1])) {
      out += '#';
    }
  }
  return out;
}

}  // namespace

TEST_CASE("digit runs shared by both sides are replaced consistently, keeping their length") {
  const std::vector<SentencePair> pairs = {
      {"On 2024-03-15 we paid 1,250 dollars to 3 people.", "El 15-03-2024 pagamos 1.250 dólares a 3 personas."},
      {"Page 7 of 7", "Página 7 de 7"},
  };
  NumberCopyCounts counts;
  const std::vector<SentencePair> copies = number_copies(pairs, &counts);
  REQUIRE(copies.size() == 2);
  CHECK(counts.digits == 2);
  CHECK(counts.words == 0);
  for (size_t i = 0; i < pairs.size(); ++i) {
    CAPTURE(copies[i].en);
    CAPTURE(copies[i].es);
    CHECK(shape(copies[i].en) == shape(pairs[i].en));
    CHECK(shape(copies[i].es) == shape(pairs[i].es));
    CHECK(copies[i].en != pairs[i].en);
    std::vector<std::string> en = runs(copies[i].en), es = runs(copies[i].es), old = runs(pairs[i].en);
    REQUIRE(en.size() == old.size());
    for (size_t k = 0; k < en.size(); ++k) {
      CHECK(en[k].size() == old[k].size());
      CHECK((old[k][0] == '0') == (en[k][0] == '0'));
    }
    std::sort(en.begin(), en.end());
    std::sort(es.begin(), es.end());
    CHECK(en == es);
  }
  // The same run gets the same replacement: "7 of 7" stays "N of N".
  const std::vector<std::string> page = runs(copies[1].en);
  CHECK(page[0] == page[1]);
  // Deterministic.
  NumberCopyCounts again;
  const std::vector<SentencePair> copies2 = number_copies(pairs, &again);
  CHECK(copies2[0].en == copies[0].en);
  CHECK(copies2[0].es == copies[0].es);
}

TEST_CASE("one number word on each side becomes the same digits") {
  const std::vector<SentencePair> pairs = {
      {"And he waited yet other seven days.", "Y esperó aún otros siete días."},
      {"Seven ships left.", "Zarparon siete barcos."},
      {"Two or three times", "Dos o tres veces"},                  // two number words
      {"He has ten sheep.", "Tiene nueve ovejas."},                // different numbers
      {"I once saw it.", "Una vez lo vi."},                        // English "once" is no number
      {"Mixed 4 and four", "Mezcla 5 y cuatro"},                   // digits differ, word rule
      {"Nothing here.", "Nada aquí."},
  };
  NumberCopyCounts counts;
  const std::vector<SentencePair> copies = number_copies(pairs, &counts);
  REQUIRE(copies.size() == 3);
  CHECK(counts.digits == 0);
  CHECK(counts.words == 3);
  const auto check_copy = [](const SentencePair& c, const std::string& en_shape, const std::string& es_shape) {
    CAPTURE(c.en);
    CAPTURE(c.es);
    CHECK(shape(c.en) == en_shape);
    CHECK(shape(c.es) == es_shape);
    const std::vector<std::string> en = runs(c.en), es = runs(c.es);
    REQUIRE(en.size() >= 1);
    CHECK(en.back() == es.back());
    CHECK(en.back()[0] != '0');
    CHECK(en.back().size() <= 4);
  };
  check_copy(copies[0], "And he waited yet other # days.", "Y esperó aún otros # días.");
  check_copy(copies[1], "# ships left.", "Zarparon # barcos.");
  check_copy(copies[2], "Mixed # and #", "Mezcla # y #");
}

}  // namespace pmt::corpus
