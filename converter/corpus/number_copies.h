// Number copies: extra training pairs that teach a model to copy numbers written in digits.
// Software messages carry few numbers and the Bible writes them in words, so a model trained on
// them drops or invents the digits of ordinary sentences ("On 3 March 2024 we paid $1,250.").
//   1. A pair whose English and Spanish have the same digit runs (as multisets) is copied with
//      each distinct run replaced by another run of the same length (the same on both sides; a
//      leading zero stays a zero).
//   2. A pair with exactly one English number word of the list in number_copies.cc (two ..
//      twelve, fifteen, twenty .. ninety) and exactly one of its Spanish words (dos .. doce,
//      quince, veinte .. noventa), and no other number word on either side, is copied with both
//      words replaced by the same number in digits (1 to 4 digits).
// The numbers are drawn from a hash of the pair, so the copies are the same on every run.
#pragma once

#include <cstdint>
#include <vector>

#include "corpus/prepare.h"

namespace pmt::corpus {

struct NumberCopyCounts {
  int64_t digits = 0;  // rule 1
  int64_t words = 0;   // rule 2
};

// The number copies of `pairs`, in their order (a pair gives at most one copy, by rule 1 first).
std::vector<SentencePair> number_copies(const std::vector<SentencePair>& pairs, NumberCopyCounts* counts);

}  // namespace pmt::corpus
