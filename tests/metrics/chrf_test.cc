// chrF against values worked out by hand with sacreBLEU 2.x's definitions: whitespace removed,
// character n-grams of orders 1..6 counted per sentence and summed over the corpus, hypothesis
// n-grams of an order not counted for a sentence whose reference has none of that order,
// precision and recall averaged over the orders with n-grams on both sides, then F-beta, beta = 2.
#include <doctest/doctest.h>

#include <stdexcept>

#include "metrics/chrf.h"

using pmt::metrics::corpus_chrf;

TEST_CASE("chrF ignores whitespace and averages only the orders present") {
  // "ab c" -> "abc" equals the reference; orders 4..6 have no n-grams and do not count.
  CHECK(corpus_chrf({"ab c"}, {"abc"}) == doctest::Approx(100.0));
  // abcd / abce: P = R per order: 3/4, 2/3, 1/2, 0/1 -> mean 0.479167; F2 = P when P == R.
  CHECK(corpus_chrf({"abcd"}, {"abce"}) == doctest::Approx(47.91666667).epsilon(1e-9));
}

TEST_CASE("chrF weighs recall twice as much as precision") {
  // ab / abcd: order 1 P = 2/2, R = 2/4; order 2 P = 1/1, R = 1/3; orders 3, 4: no hypothesis
  // n-grams. P = 1, R = 0.416667, F2 = 5PR / (4P + R) = 0.471698.
  CHECK(corpus_chrf({"ab"}, {"abcd"}) == doctest::Approx(47.16981132).epsilon(1e-9));
}

TEST_CASE("corpus chrF sums the n-gram statistics before dividing") {
  // (abcd, abce) + (ab, abcd): order 1: 5 matches / 6 hyp / 8 ref; order 2: 3/4/6; order 3: 1/2/4;
  // order 4: 0/1/2. P = (5/6 + 3/4 + 1/2 + 0)/4 = 0.520833, R = (5/8 + 3/6 + 1/4 + 0)/4 = 0.34375.
  // F2 = 36.8830
  CHECK(corpus_chrf({"abcd", "ab"}, {"abce", "abcd"}) == doctest::Approx(36.88304721).epsilon(1e-9));
}

TEST_CASE("hypothesis n-grams are not counted where the reference has none of that order") {
  // (abcdefg, abc): the reference has no 4..6-grams, so the hypothesis' 4..6-grams are dropped.
  // With (abcd, abcd): order 4 is 1 hypothesis / 1 reference / 1 match (not 5 hypothesis 4-grams).
  // P = (7/11 + 5/9 + 3/7 + 1)/4 = 0.655123, R = 1, F2 = 90.4743
  CHECK(corpus_chrf({"abcdefg", "abcd"}, {"abc", "abcd"}) ==
        doctest::Approx(90.47429255).epsilon(1e-9));
}

TEST_CASE("chrF counts code points, not bytes") {
  // niño / nino: order 1: 3 of 4; order 2: "ni" of 3; orders 3, 4: none. F2 = P = 27.0833
  CHECK(corpus_chrf({"niño"}, {"nino"}) == doctest::Approx(27.08333333).epsilon(1e-9));
}

TEST_CASE("chrF edge cases") {
  CHECK(corpus_chrf({""}, {"abc"}) == 0.0);
  CHECK(corpus_chrf({"xyz"}, {"abc"}) == 0.0);
  CHECK(corpus_chrf({}, {}) == 0.0);
  CHECK_THROWS_AS(corpus_chrf({"a", "b"}, {"a"}), std::invalid_argument);
}
