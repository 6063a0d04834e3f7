// Corpus-level BLEU with sacreBLEU's defaults (BLEU-4, 13a tokenizer, "exp" smoothing, case
// sensitive), so scores are comparable with numbers published from sacreBLEU 2.x.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pmt::metrics {

struct BleuScore {
  double score;            // 0..100
  double precisions[4];    // modified n-gram precisions for n = 1..4, in percent (0..100)
  double brevity_penalty;  // in (0, 1]
  double sys_ref_ratio;    // sys_len / ref_len
  int64_t sys_len, ref_len;  // total 13a tokens in hypotheses / references
};

// One reference per hypothesis; hyps.size() must equal refs.size() (throws std::invalid_argument
// otherwise). Empty input gives a score of 0.
BleuScore corpus_bleu(const std::vector<std::string>& hyps, const std::vector<std::string>& refs);

// sacreBLEU's "13a" tokenizer (mteval-v13a.pl): splits punctuation off words, keeps periods and
// commas inside numbers, collapses whitespace. Returns the tokens joined by single spaces.
std::string tokenize_13a(std::string_view line);

}  // namespace pmt::metrics
