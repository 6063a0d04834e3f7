// Alignment of the verses of one chapter in two translations that share a verse numbering on
// paper but not always in fact (RV1909 against the KJV: RV is shifted by one to five verses in
// about 18 stretches, e.g. 1 Samuel 24 where RV 24:1 = KJV 23:29, or Job 40 where RV 40:1 =
// KJV 40:6 and RV leaves 40:20-24 empty).
#pragma once

#include <span>
#include <vector>

namespace pmt::corpus {

// What the alignment compares: the verse length in characters (code points) and its number of
// question marks. Lengths alone cannot place a shift inside Job's uniform poetry; question marks
// are kept by both translations in 98% of the verses they share.
struct VerseFeatures {
  int length = 0;
  int question_marks = 0;
};

// Gale & Church (1993) dynamic programming with two additions. Beads and prior probabilities:
// 1-1 0.89; 1-0 and 0-1 0.0099 each; 2-1 and 1-2 0.0445 each; 2-2 0.011. A bead joining source
// length ls with target length lt costs
//   -log(prior) - log(2 (1 - Phi(|d|))) - |qs - qt| log(question_mark_mismatch)
//   d = (lt - c ls) / sqrt(s2 max(1, (ls + lt / c) / 2))
// where c is the target characters per source character, s2 the variance per character (the
// mean of both sides in source units is used so that empty verses give finite costs) and qs, qt
// the question marks on each side. Additions to Gale & Church: the question-mark term, and a
// 1-0 or 0-1 bead of an empty verse costs only -log(empty_skip), since a module leaves a verse
// empty precisely where its text sits under another number.
// Ties are broken by the bead order above, so the result is deterministic.
struct AlignmentModel {
  double target_per_source_char = 1.0;     // c
  double variance_per_char = 6.8;          // s2, Gale & Church's value
  double question_mark_mismatch = 0.05;    // probability of each question mark not matched
  double empty_skip = 0.5;                 // probability of skipping an empty verse
};

// For each source verse i: true when the best alignment puts it in a 1-1 bead with target
// verse i (same number, nothing merged, split or shifted). The result has source.size() entries.
std::vector<bool> aligned_in_place(std::span<const VerseFeatures> source,
                                   std::span<const VerseFeatures> target, const AlignmentModel& model);

}  // namespace pmt::corpus
