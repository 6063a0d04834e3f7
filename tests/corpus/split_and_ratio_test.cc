#include <doctest/doctest.h>

#include <string>

#include "corpus/corpus_split.h"
#include "corpus/length_ratio.h"

using namespace pmt::corpus;

TEST_CASE("chapter split rule: % 32 == 7 test, == 23 valid") {
  CHECK(split_of_chapter(0) == Split::kTrain);
  CHECK(split_of_chapter(7) == Split::kTest);
  CHECK(split_of_chapter(23) == Split::kValid);
  CHECK(split_of_chapter(39) == Split::kTest);
  CHECK(split_of_chapter(55) == Split::kValid);
  CHECK(split_of_chapter(1188) == Split::kTrain);  // 1188 % 32 == 4
  // Over the 1,189 chapters: 7, 39, ..., 1159 -> 37 test; 23, 55, ..., 1175 -> 37 valid.
  int counts[kNumSplits] = {};
  for (int c = 0; c < 1189; ++c) ++counts[static_cast<int>(split_of_chapter(c))];
  CHECK(counts[static_cast<int>(Split::kTest)] == 37);
  CHECK(counts[static_cast<int>(Split::kValid)] == 37);
  CHECK(counts[static_cast<int>(Split::kTrain)] == 1115);
  CHECK(std::string(split_name(Split::kValid)) == "valid");
}

TEST_CASE("median and the ratio window") {
  CHECK(median({}) == 0.0);
  CHECK(median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(ratio_within(2.0, 1.0, 2.0));
  CHECK(ratio_within(0.5, 1.0, 2.0));
  CHECK_FALSE(ratio_within(2.01, 1.0, 2.0));
  CHECK_FALSE(ratio_within(0.49, 1.0, 2.0));
}
