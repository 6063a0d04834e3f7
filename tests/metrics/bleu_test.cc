// BLEU against values worked out by hand with sacreBLEU 2.x's definitions (13a tokenizer, clipped
// n-gram counts summed over the corpus, "exp" smoothing, brevity penalty exp(1 - r/c)).
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "metrics/bleu.h"

using pmt::metrics::corpus_bleu;
using pmt::metrics::tokenize_13a;

TEST_CASE("13a tokenizer splits punctuation the way mteval-v13a does") {
  // Period/comma stay inside numbers; a dash after a digit is split; symbols get spaces.
  CHECK(tokenize_13a("It cost 3.50 dollars in 2021-22.") == "It cost 3.50 dollars in 2021 - 22 .");
  CHECK(tokenize_13a("Hello, world!") == "Hello , world !");
  CHECK(tokenize_13a("&quot;Hi&quot; (x) a&amp;b") == "\" Hi \" ( x ) a & b");
  // Apostrophes and hyphens between letters are not split; non-ASCII punctuation is not either.
  CHECK(tokenize_13a("don't re-enter") == "don't re-enter");
  CHECK(tokenize_13a("¿Qué? Sí.") == "¿Qué ? Sí .");
  CHECK(tokenize_13a("  many\t spaces\u00a0here ") == "many spaces here");
  CHECK(tokenize_13a("a.,b") == "a . , b");
  CHECK(tokenize_13a("1,000.5,x") == "1,000.5 , x");
}

TEST_CASE("BLEU of one sentence with a smoothed 4-gram precision") {
  // hyp: the cat sat on the mat    ref: the cat is on the mat   (6 tokens each, BP = 1)
  // 1-grams: the x2 (ref has 2), cat, on, mat match, sat does not     -> 5/6
  // 2-grams: the cat, on the, the mat match; cat sat, sat on do not   -> 3/5
  // 3-grams: only "on the mat" matches                               -> 1/4
  // 4-grams: none of 3 match -> exp smoothing: 1 / (2 * 3)            -> 16.667%
  // BLEU = (83.333 * 60 * 25 * 16.667)^(1/4) = 37.9918
  const auto s = corpus_bleu({"the cat sat on the mat"}, {"the cat is on the mat"});
  CHECK(s.score == doctest::Approx(37.99178428).epsilon(1e-9));
  CHECK(s.precisions[0] == doctest::Approx(100.0 * 5 / 6));
  CHECK(s.precisions[1] == doctest::Approx(60.0));
  CHECK(s.precisions[2] == doctest::Approx(25.0));
  CHECK(s.precisions[3] == doctest::Approx(100.0 / 6));
  CHECK(s.brevity_penalty == 1.0);
  CHECK(s.sys_len == 6);
  CHECK(s.ref_len == 6);
  CHECK(s.sys_ref_ratio == 1.0);
}

TEST_CASE("corpus BLEU sums counts over sentences and applies the brevity penalty") {
  // Sentence 1: "Hello , world !" vs itself: 4/4, 3/3, 2/2, 1/1.
  // Sentence 2: hyp "It costs 3.50 dollars ." (5) vs ref "It cost 3.50 dollars in 2021 - 22 ." (9):
  //   1-grams It, 3.50, dollars, . match -> 4/5; 2-grams only "3.50 dollars" -> 1/4; 0/3; 0/2.
  // Corpus: 8/9, 4/7, 2/5, 1/3 (no zero order, so no smoothing); c = 9, r = 13.
  // BP = exp(1 - 13/9) = 0.641180; geometric mean = (88.889 * 57.143 * 40 * 33.333)^(1/4) = 51.0137
  const auto s = corpus_bleu({"Hello, world!", "It costs 3.50 dollars."},
                             {"Hello, world!", "It cost 3.50 dollars in 2021-22."});
  CHECK(s.sys_len == 9);
  CHECK(s.ref_len == 13);
  CHECK(s.brevity_penalty == doctest::Approx(0.64118038843).epsilon(1e-9));
  CHECK(s.sys_ref_ratio == doctest::Approx(9.0 / 13.0));
  CHECK(s.precisions[0] == doctest::Approx(800.0 / 9));
  CHECK(s.precisions[1] == doctest::Approx(400.0 / 7));
  CHECK(s.precisions[2] == doctest::Approx(40.0));
  CHECK(s.precisions[3] == doctest::Approx(100.0 / 3));
  CHECK(s.score == doctest::Approx(32.70900036).epsilon(1e-9));
}

TEST_CASE("exp smoothing doubles its divisor for each further order without a match") {
  // hyp a b c d e / ref a b x d e: 4/5, 2/4, then 0/3 -> 1/(2*3), 0/2 -> 1/(4*2).
  // BLEU = (80 * 50 * 16.667 * 12.5)^(1/4) = 30.2138
  const auto s = corpus_bleu({"a b c d e"}, {"a b x d e"});
  CHECK(s.precisions[2] == doctest::Approx(100.0 / 6));
  CHECK(s.precisions[3] == doctest::Approx(12.5));
  CHECK(s.score == doctest::Approx(30.21375397).epsilon(1e-9));
}

TEST_CASE("BLEU edge cases follow sacreBLEU") {
  // No match at all: 0 with all precisions 0.
  const auto none = corpus_bleu({"x y z w"}, {"a b c d"});
  CHECK(none.score == 0.0);
  CHECK(none.precisions[0] == 0.0);
  // Fewer than 4 tokens in the whole corpus: no 4-grams, the score is 0 even for a perfect match.
  CHECK(corpus_bleu({"a b c"}, {"a b c"}).score == 0.0);
  // Empty hypothesis: BP 0.
  const auto empty = corpus_bleu({""}, {"a b c d"});
  CHECK(empty.score == 0.0);
  CHECK(empty.brevity_penalty == 0.0);
  // Case sensitive, trailing whitespace ignored.
  CHECK(corpus_bleu({"The cat sat down .  \n"}, {"The cat sat down ."}).score ==
        doctest::Approx(100.0));
  CHECK(corpus_bleu({"the cat sat down ."}, {"The cat sat down ."}).score < 100.0);
  CHECK(corpus_bleu({}, {}).score == 0.0);
  CHECK_THROWS_AS(corpus_bleu({"a"}, {}), std::invalid_argument);
}
