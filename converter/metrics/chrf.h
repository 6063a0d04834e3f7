// Corpus-level chrF with sacreBLEU's defaults (character n-grams 1..6, no word n-grams, beta = 2,
// whitespace removed before counting, case sensitive), comparable with sacreBLEU 2.x output.
#pragma once

#include <string>
#include <vector>

namespace pmt::metrics {

// One reference per hypothesis; hyps.size() must equal refs.size() (throws std::invalid_argument
// otherwise). Returns the score in 0..100; empty input gives 0.
double corpus_chrf(const std::vector<std::string>& hyps, const std::vector<std::string>& refs);

}  // namespace pmt::metrics
