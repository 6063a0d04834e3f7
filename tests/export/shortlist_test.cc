// The shortlist builder against counts worked out by hand.
#include "export/shortlist.h"

#include <doctest/doctest.h>

#include <vector>

namespace {

using pmt::exporter::Shortlist;
using pmt::exporter::ShortlistOptions;

std::vector<uint16_t> of(const Shortlist& list, size_t source) {
  return {list.targets.begin() + list.offsets[source], list.targets.begin() + list.offsets[source + 1]};
}

}  // namespace

TEST_CASE("build_shortlist keeps the frequent targets and each source piece's best Dice partners") {
  // Vocabulary 10, EOS 3 (appended by ParallelData::add, never counted).
  pmt::train::ParallelData data;
  const std::vector<std::vector<int32_t>> src = {{4, 5}, {4}, {5}, {5, 4, 4}}, tgt = {{6, 7}, {6, 8}, {7, 9}, {7, 6, 6}};
  for (size_t i = 0; i < src.size(); ++i) data.add(src[i], tgt[i]);
  // Target occurrences: 6 four times, 7 three, 8 and 9 once: frequent (1) = {6}.
  // Pairs: c(4) = 3 (0, 1, 3), c(5) = 3 (0, 2, 3), c(7) = 3, c(8) = c(9) = 1.
  // Source 4 with 7: pairs 0 and 3, Dice 2*2/(3+3) = 0.67; with 8: pair 1, 2*1/(3+1) = 0.5.
  // Source 5 with 7: pairs 0, 2, 3, Dice 1; with 9: 0.5.
  Shortlist list;
  REQUIRE(pmt::exporter::build_shortlist(data, 10, pmt::kEosId, ShortlistOptions{1, 2, 1}, &list).empty());
  CHECK(list.frequent == std::vector<int32_t>{6});
  REQUIRE(list.offsets.size() == 11);
  CHECK(of(list, 4) == std::vector<uint16_t>{7, 8});
  CHECK(of(list, 5) == std::vector<uint16_t>{7, 9});
  for (size_t s : {0, 1, 2, 3, 6, 7, 8, 9}) CHECK(of(list, s).empty());
  CHECK(list.offsets.back() == list.targets.size());

  // One per source piece: the best Dice; at least two shared pairs: 8 and 9 drop out.
  REQUIRE(pmt::exporter::build_shortlist(data, 10, pmt::kEosId, ShortlistOptions{1, 1, 1}, &list).empty());
  CHECK(of(list, 4) == std::vector<uint16_t>{7});
  CHECK(of(list, 5) == std::vector<uint16_t>{7});
  REQUIRE(pmt::exporter::build_shortlist(data, 10, pmt::kEosId, ShortlistOptions{1, 2, 2}, &list).empty());
  CHECK(of(list, 4) == std::vector<uint16_t>{7});
  CHECK(of(list, 5) == std::vector<uint16_t>{7});
  // Two frequent pieces: 6 and 7 (ascending), so 7 leaves the per-source lists.
  REQUIRE(pmt::exporter::build_shortlist(data, 10, pmt::kEosId, ShortlistOptions{2, 2, 1}, &list).empty());
  CHECK(list.frequent == std::vector<int32_t>{6, 7});
  CHECK(of(list, 4) == std::vector<uint16_t>{8});
  CHECK(of(list, 5) == std::vector<uint16_t>{9});
}

TEST_CASE("build_shortlist refuses a vocabulary beyond 16-bit ids and ids outside the vocabulary") {
  pmt::train::ParallelData data;
  data.add(std::vector<int32_t>{4}, std::vector<int32_t>{5});
  Shortlist list;
  CHECK(pmt::exporter::build_shortlist(data, 65537, pmt::kEosId, {}, &list).find("16-bit") != std::string::npos);
  CHECK(pmt::exporter::build_shortlist(data, 5, pmt::kEosId, {}, &list).find("target id 5 outside") != std::string::npos);
}
