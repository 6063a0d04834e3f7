#include "train/greedy.h"

#include <algorithm>
#include <numeric>

namespace pmt::train {

std::vector<std::vector<int32_t>> greedy_decode(Transformer* model, const std::vector<std::span<const int32_t>>& sources,
                                                int32_t max_tgt_len, const GreedyOptions& options) {
  const ModelConfig& config = model->config();
  const int32_t V = config.vocab_size;
  const int32_t cap = std::min(max_tgt_len, config.max_len);
  const size_t n = sources.size();
  // Tokens row i may generate, its EOS included: the decoder input (BOS + tokens before the
  // last) must fit in cap positions.
  auto budget = [&](size_t i) { return std::min<int32_t>(cap, static_cast<int32_t>(sources[i].size()) + options.extra_len); };

  // Length-sorted, so each forward pass pads little.
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return sources[a].size() < sources[b].size(); });

  std::vector<std::vector<int32_t>> out(n);
  std::vector<uint32_t> active;
  Batch batch;
  for (size_t begin = 0; begin < n;) {
    size_t end = begin;
    int32_t S = 0, T = 0;
    while (end < n && end - begin < static_cast<size_t>(options.max_batch)) {
      const int32_t s = std::max(S, static_cast<int32_t>(sources[order[end]].size()));
      const int32_t t = std::max(T, budget(order[end]));
      if (end > begin && static_cast<int64_t>(end - begin + 1) * std::max(s, t) > options.batch_tokens) break;
      S = s;
      T = t;
      ++end;
    }
    // Rows still decoding (positions in `order`). Finished rows leave the batch, so at step L every
    // live row holds exactly L - 1 generated tokens and the decoder input has no padding.
    active.clear();
    for (size_t r = begin; r < end; ++r) active.push_back(static_cast<uint32_t>(r));
    for (int32_t L = 1; L <= T && !active.empty(); ++L) {
      const auto B = static_cast<int32_t>(active.size());
      S = 0;
      for (uint32_t a : active) S = std::max(S, static_cast<int32_t>(sources[order[a]].size()));
      batch.batch = B;
      batch.src_len = S;
      batch.tgt_len = L;
      batch.src.assign(static_cast<size_t>(B) * S, kPadId);
      batch.tgt_in.resize(static_cast<size_t>(B) * L);
      // tgt_out only needs non-pad entries so the (unused) loss is well defined.
      batch.tgt_out.assign(static_cast<size_t>(B) * L, kEosId);
      for (int32_t r = 0; r < B; ++r) {
        const size_t i = order[active[r]];
        std::copy(sources[i].begin(), sources[i].end(), batch.src.begin() + static_cast<ptrdiff_t>(r) * S);
        int32_t* in = batch.tgt_in.data() + static_cast<ptrdiff_t>(r) * L;
        in[0] = kBosId;
        std::copy(out[i].begin(), out[i].end(), in + 1);
      }
      model->forward(batch, /*train=*/false, DropoutRng{});
      const float* logits = model->logits();
      size_t kept = 0;
      for (int32_t r = 0; r < B; ++r) {
        const size_t i = order[active[r]];
        const float* row = logits + (static_cast<size_t>(r) * L + (L - 1)) * V;
        const auto best = static_cast<int32_t>(std::max_element(row, row + V) - row);
        if (best == kEosId) continue;
        out[i].push_back(best);
        if (L < budget(i)) active[kept++] = active[r];
      }
      active.resize(kept);
    }
    begin = end;
  }
  return out;
}

}  // namespace pmt::train
