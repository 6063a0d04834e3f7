#include "export/shortlist.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace pmt::exporter {
namespace {

// The distinct pieces of each sentence of one side, as one CSR list: sentence i holds
// ids[begin[i], begin[i + 1]), ascending.
struct PieceSets {
  std::vector<uint32_t> begin{0};
  std::vector<int32_t> ids;
};

template <class Side>
PieceSets distinct_pieces(const train::ParallelData& data, Side side, int32_t eos_id) {
  PieceSets sets;
  for (size_t i = 0; i < data.size(); ++i) {
    const auto pieces = side(i);
    const size_t at = sets.ids.size();
    for (int32_t id : pieces)
      if (id != eos_id) sets.ids.push_back(id);
    std::sort(sets.ids.begin() + at, sets.ids.end());
    sets.ids.erase(std::unique(sets.ids.begin() + at, sets.ids.end()), sets.ids.end());
    sets.begin.push_back(static_cast<uint32_t>(sets.ids.size()));
  }
  return sets;
}

}  // namespace

std::string build_shortlist(const train::ParallelData& data, int32_t vocab_size, int32_t eos_id,
                            const ShortlistOptions& options, Shortlist* out) {
  if (vocab_size <= 0 || vocab_size > 65536)
    return "a shortlist stores 16-bit ids: vocabulary size " + std::to_string(vocab_size) + " is not in 1..65536";
  const size_t V = static_cast<size_t>(vocab_size);
  const PieceSets src = distinct_pieces(data, [&](size_t i) { return data.src(i); }, eos_id);
  const PieceSets tgt = distinct_pieces(data, [&](size_t i) { return data.tgt(i); }, eos_id);
  for (int32_t id : src.ids)
    if (id < 0 || static_cast<size_t>(id) >= V) return "source id " + std::to_string(id) + " outside the vocabulary";
  for (int32_t id : tgt.ids)
    if (id < 0 || static_cast<size_t>(id) >= V) return "target id " + std::to_string(id) + " outside the vocabulary";

  // The frequent list ranks target pieces by occurrences (a piece repeated in a sentence counts
  // each time: that is what the decoder has to produce).
  std::vector<uint64_t> occurrences(V, 0);
  for (size_t i = 0; i < data.size(); ++i)
    for (int32_t id : data.tgt(i))
      if (id != eos_id) ++occurrences[id];
  std::vector<int32_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  const size_t n_frequent = std::min(options.frequent, V);
  std::partial_sort(order.begin(), order.begin() + n_frequent, order.end(), [&](int32_t a, int32_t b) {
    return occurrences[a] != occurrences[b] ? occurrences[a] > occurrences[b] : a < b;
  });
  out->frequent.assign(order.begin(), order.begin() + n_frequent);
  std::sort(out->frequent.begin(), out->frequent.end());
  std::vector<bool> is_frequent(V, false);
  for (int32_t id : out->frequent) is_frequent[id] = true;

  // Pairs per piece: c(s) and c(t), and for each source piece the list of its pairs.
  std::vector<uint32_t> src_pairs(V, 0), tgt_pairs(V, 0);
  for (int32_t id : src.ids) ++src_pairs[id];
  for (int32_t id : tgt.ids) ++tgt_pairs[id];
  std::vector<uint32_t> pairs_begin(V + 1, 0);
  for (size_t s = 0; s < V; ++s) pairs_begin[s + 1] = pairs_begin[s] + src_pairs[s];
  std::vector<uint32_t> pairs_of(src.ids.size()), fill(pairs_begin.begin(), pairs_begin.end() - 1);
  for (size_t i = 0; i < data.size(); ++i)
    for (uint32_t k = src.begin[i]; k < src.begin[i + 1]; ++k) pairs_of[fill[src.ids[k]]++] = static_cast<uint32_t>(i);

  // One source piece at a time: co-occurrence counts in a dense row, reset through the list of
  // the targets touched, so memory stays O(V) whatever the vocabulary.
  std::vector<uint32_t> together(V, 0);
  std::vector<int32_t> touched, kept;
  std::vector<double> dice(V, 0.0);
  out->offsets.assign(1, 0);
  out->targets.clear();
  for (size_t s = 0; s < V; ++s) {
    touched.clear();
    for (uint32_t p = pairs_begin[s]; p < pairs_begin[s + 1]; ++p) {
      const uint32_t i = pairs_of[p];
      for (uint32_t k = tgt.begin[i]; k < tgt.begin[i + 1]; ++k)
        if (together[tgt.ids[k]]++ == 0) touched.push_back(tgt.ids[k]);
    }
    kept.clear();
    for (int32_t t : touched) {
      if (together[t] >= options.min_pairs && !is_frequent[t]) {
        dice[t] = 2.0 * together[t] / (static_cast<double>(src_pairs[s]) + tgt_pairs[t]);
        kept.push_back(t);
      }
      together[t] = 0;
    }
    const size_t n = std::min(options.per_source, kept.size());
    std::partial_sort(kept.begin(), kept.begin() + n, kept.end(),
                      [&](int32_t a, int32_t b) { return dice[a] != dice[b] ? dice[a] > dice[b] : a < b; });
    std::sort(kept.begin(), kept.begin() + n);
    for (size_t k = 0; k < n; ++k) out->targets.push_back(static_cast<uint16_t>(kept[k]));
    out->offsets.push_back(static_cast<uint32_t>(out->targets.size()));
  }
  return {};
}

}  // namespace pmt::exporter
