// Which split a chapter belongs to. Whole chapters are held out so that neighbouring verses,
// which often repeat each other, never straddle train and test.
#pragma once

namespace pmt::corpus {

enum class Split { kTrain = 0, kValid = 1, kTest = 2 };
inline constexpr int kNumSplits = 3;

// Chapters are numbered 0..1188 in canonical order (Genesis 1 = 0, Revelation 22 = 1188):
// index % 32 == 7 -> test, == 23 -> valid, anything else -> train.
Split split_of_chapter(int chapter_index);

// "train", "valid", "test": the file stems of the prepared corpus.
const char* split_name(Split split);

}  // namespace pmt::corpus
