#include "corpus/corpus_split.h"

namespace pmt::corpus {

Split split_of_chapter(int chapter_index) {
  switch (chapter_index % 32) {
    case 7:
      return Split::kTest;
    case 23:
      return Split::kValid;
    default:
      return Split::kTrain;
  }
}

const char* split_name(Split split) {
  switch (split) {
    case Split::kTrain:
      return "train";
    case Split::kValid:
      return "valid";
    case Split::kTest:
      return "test";
  }
  return "?";
}

}  // namespace pmt::corpus
