// Clean-ups specific to the Reina-Valera 1909 text (spaRV1909eb), applied after OSIS stripping.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

namespace pmt::corpus {

// RV1909 ends 14 of Paul's letters with a subscription in the last verse's text ("... Amén.
// Fué escrita de Corinto á los Romanos, ..."), which the English texts lack. Where the KJV module
// marks a subscription (has_subscription), the RV verse is cut after its last "Amén.".
// Returns the verse unchanged when it has no "Amén.".
std::string cut_subscription(std::string_view verse);

// How often each word (keyed in lower case) appears capitalised ("Jehová") or in lower case
// ("aconteció") in running text; words written wholly in capitals are not counted.
class WordCaseCounts {
 public:
  void add_text(std::string_view text);
  // True when the capitalised form is strictly more frequent; unseen words are lower case.
  bool prefers_capital(std::u32string_view lower_word) const;

 private:
  std::unordered_map<std::u32string, std::pair<int, int>> counts_;  // {lower, capitalised}
};

// RV1909 opens about 1,185 chapters in capitals ("EN el principio", "Y ACONTECIÓ después",
// "Salmo de David. OH Jehová"). In verse 1 of a chapter, the first run of words written wholly in
// capitals (separated by single spaces, one word of two or more letters, followed by a word not
// in capitals) is re-cased: its first word capitalised, each later word in the form `counts`
// prefers ("Y ACONTECIÓ" -> "Y aconteció", "Y JEHOVÁ" -> "Y Jehová"). Other capitals
// ("ALEPH." before such a run, "ESTE ES JESUS EL REY DE LOS JUDIOS") are left alone.
// Returns the verse unchanged when it has no such run.
std::string recase_chapter_opening(std::string_view verse, const WordCaseCounts& counts);

}  // namespace pmt::corpus
