#include "metrics/chrf.h"

#include <stdexcept>
#include <unordered_map>

#include "corpus/utf8.h"

namespace pmt::metrics {
namespace {

constexpr int kCharOrder = 6;
constexpr double kBeta = 2.0;

// Per order: hypothesis n-grams, reference n-grams, matched n-grams (clipped counts).
struct OrderStats {
  int64_t hyp = 0, ref = 0, match = 0;
};

// The line without any whitespace, as code points (sacreBLEU: ''.join(line.split())).
std::u32string without_space(std::string_view line) {
  std::u32string out;
  for (std::string_view field : text::split_on_space(line)) out += text::decode_utf8(field);
  return out;
}

std::unordered_map<std::u32string, int64_t> count_char_ngrams(const std::u32string& s, size_t n) {
  std::unordered_map<std::u32string, int64_t> counts;
  for (size_t i = 0; i + n <= s.size(); ++i) ++counts[s.substr(i, n)];
  return counts;
}

}  // namespace

double corpus_chrf(const std::vector<std::string>& hyps, const std::vector<std::string>& refs) {
  if (hyps.size() != refs.size()) {
    throw std::invalid_argument("corpus_chrf: " + std::to_string(hyps.size()) + " hypotheses but " +
                                std::to_string(refs.size()) + " references");
  }
  OrderStats stats[kCharOrder];
  for (size_t s = 0; s < hyps.size(); ++s) {
    const std::u32string hyp = without_space(hyps[s]);
    const std::u32string ref = without_space(refs[s]);
    for (size_t n = 1; n <= kCharOrder; ++n) {
      const auto ref_counts = count_char_ngrams(ref, n);
      int64_t hyp_total = 0, matched = 0, ref_total = 0;
      for (const auto& [ngram, count] : count_char_ngrams(hyp, n)) {
        hyp_total += count;
        const auto it = ref_counts.find(ngram);
        if (it != ref_counts.end()) matched += std::min(count, it->second);
      }
      for (const auto& entry : ref_counts) ref_total += entry.second;
      OrderStats& o = stats[n - 1];
      // sacreBLEU does not count hypothesis n-grams of an order the reference is too short for.
      o.hyp += ref_counts.empty() ? 0 : hyp_total;
      o.ref += ref_total;
      o.match += matched;
    }
  }

  // Precision and recall averaged over the orders both sides have n-grams for, then F-beta.
  double precision = 0.0, recall = 0.0;
  int effective_order = 0;
  for (const OrderStats& o : stats) {
    if (o.hyp > 0 && o.ref > 0) {
      precision += static_cast<double>(o.match) / static_cast<double>(o.hyp);
      recall += static_cast<double>(o.match) / static_cast<double>(o.ref);
      ++effective_order;
    }
  }
  if (effective_order == 0) return 0.0;
  precision /= effective_order;
  recall /= effective_order;
  if (precision + recall == 0.0) return 0.0;
  const double b2 = kBeta * kBeta;
  return 100.0 * (1.0 + b2) * precision * recall / (b2 * precision + recall);
}

}  // namespace pmt::metrics
