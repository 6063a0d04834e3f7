// Batched greedy decoding with the trainer's own forward pass (eval mode), for validation BLEU
// and as the reference the runtime's incremental decoder is compared with. Each step re-runs the
// whole target prefix (no key/value cache): quadratic in the output length, but it shares every
// line of the model with training.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "train/model.h"

namespace pmt::train {

struct GreedyOptions {
  int32_t max_batch = 64;       // rows per forward pass
  int64_t batch_tokens = 4000;  // and rows * max(S, T) at most this (but at least one row)
  int32_t extra_len = 50;       // a hypothesis stops after source length + extra_len tokens
};

// Decodes every source (ids ending with EOS, as in training). The output length is also capped by
// the model's max_len and by max_tgt_len (the decoder input length the model was sized for).
// Returns per source the generated ids without BOS and EOS. A row leaves the batch once it has
// produced EOS, so the cost follows the hypotheses' lengths.
std::vector<std::vector<int32_t>> greedy_decode(Transformer* model, const std::vector<std::span<const int32_t>>& sources,
                                                int32_t max_tgt_len, const GreedyOptions& options);

}  // namespace pmt::train
