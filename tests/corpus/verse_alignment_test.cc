// The verse alignment on crafted chapters whose true alignment is known by construction.
#include <doctest/doctest.h>

#include <vector>

#include "corpus/verse_alignment.h"

using pmt::corpus::aligned_in_place;
using pmt::corpus::AlignmentModel;
using pmt::corpus::VerseFeatures;

namespace {

const std::vector<int> kLengths = {52, 140, 35, 96, 210, 64, 120, 45, 180, 77};

// Target verse lengths: c characters per source character.
std::vector<VerseFeatures> scaled(const std::vector<int>& lengths, double c) {
  std::vector<VerseFeatures> v;
  for (int l : lengths) v.push_back({static_cast<int>(l * c + 0.5), 0});
  return v;
}

std::vector<VerseFeatures> features(const std::vector<int>& lengths) { return scaled(lengths, 1.0); }

}  // namespace

TEST_CASE("a chapter that corresponds verse by verse is aligned in place") {
  AlignmentModel model;
  model.target_per_source_char = 0.92;
  const auto in_place = aligned_in_place(features(kLengths), scaled(kLengths, 0.92), model);
  CHECK(in_place == std::vector<bool>(kLengths.size(), true));
}

TEST_CASE("a chapter shifted by one verse has no verse in place") {
  // Target verse 1 belongs to the previous chapter (as RV 1 Samuel 24:1 = KJV 23:29); target
  // verse k+1 is source verse k; the last source verse went on to the next chapter.
  std::vector<int> target = {300};
  target.insert(target.end(), kLengths.begin(), kLengths.end() - 1);
  const auto in_place = aligned_in_place(features(kLengths), features(target), AlignmentModel{});
  CHECK(in_place == std::vector<bool>(kLengths.size(), false));
}

TEST_CASE("a merged pair of verses is flagged and the rest stays in place") {
  // Target verse 2 holds source verses 2 and 3; target verse 3 is left empty.
  std::vector<int> target = kLengths;
  target[1] = kLengths[1] + kLengths[2];
  target[2] = 0;
  const auto in_place = aligned_in_place(features(kLengths), features(target), AlignmentModel{});
  std::vector<bool> expected(kLengths.size(), true);
  expected[1] = expected[2] = false;
  CHECK(in_place == expected);
}

TEST_CASE("question marks place a shift that uniform lengths hide") {
  // Job 40 in miniature: every verse 60 characters; the target starts one verse later and leaves
  // its last verse empty. Lengths alone cannot tell the in-place and the shifted alignment apart
  // (they cost the same); the question marks can.
  const std::vector<int> questions = {0, 2, 1, 0, 3, 1, 0, 2, 1, 0};
  std::vector<VerseFeatures> source, target;
  for (size_t i = 0; i < questions.size(); ++i) source.push_back({60, questions[i]});
  for (size_t i = 1; i < questions.size(); ++i) target.push_back({60, questions[i]});
  target.push_back({0, 0});
  CHECK(aligned_in_place(source, target, AlignmentModel{}) == std::vector<bool>(source.size(), false));
}

TEST_CASE("verses beyond the end of the target are never in place") {
  const auto in_place = aligned_in_place(features({50, 60, 70}), features({50}), AlignmentModel{});
  REQUIRE(in_place.size() == 3);
  CHECK_FALSE(in_place[1]);
  CHECK_FALSE(in_place[2]);
  CHECK(aligned_in_place({}, features({50}), AlignmentModel{}).empty());
}
