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
  std::vector<uint8_t> done;
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
    const auto B = static_cast<int32_t>(end - begin);
    batch.batch = B;
    batch.src_len = S;
    batch.src.assign(static_cast<size_t>(B) * S, kPadId);
    for (int32_t r = 0; r < B; ++r) {
      const auto src = sources[order[begin + r]];
      std::copy(src.begin(), src.end(), batch.src.begin() + static_cast<ptrdiff_t>(r) * S);
    }
    done.assign(static_cast<size_t>(B), 0);
    for (int32_t L = 1; L <= T; ++L) {
      // Decoder input: BOS + each row's tokens so far. tgt_out only marks the live positions
      // non-pad so the (unused) loss is well defined.
      batch.tgt_len = L;
      batch.tgt_in.assign(static_cast<size_t>(B) * L, kPadId);
      batch.tgt_out.assign(static_cast<size_t>(B) * L, kPadId);
      for (int32_t r = 0; r < B; ++r) {
        const auto& hyp = out[order[begin + r]];
        int32_t* in = batch.tgt_in.data() + static_cast<ptrdiff_t>(r) * L;
        in[0] = kBosId;
        const auto len = std::min<int32_t>(static_cast<int32_t>(hyp.size()), L - 1);
        std::copy(hyp.begin(), hyp.begin() + len, in + 1);
        std::fill(batch.tgt_out.begin() + static_cast<ptrdiff_t>(r) * L,
                  batch.tgt_out.begin() + static_cast<ptrdiff_t>(r) * L + len + 1, kEosId);
      }
      model->forward(batch, /*train=*/false, DropoutRng{});
      const float* logits = model->logits();
      bool all_done = true;
      for (int32_t r = 0; r < B; ++r) {
        if (done[r]) continue;
        const size_t i = order[begin + r];
        const float* row = logits + (static_cast<size_t>(r) * L + (L - 1)) * V;
        const auto best = static_cast<int32_t>(std::max_element(row, row + V) - row);
        if (best == kEosId) {
          done[r] = 1;
          continue;
        }
        out[i].push_back(best);
        if (L >= budget(i)) {
          done[r] = 1;
        } else {
          all_done = false;
        }
      }
      if (all_done) break;
    }
    begin = end;
  }
  return out;
}

}  // namespace pmt::train
