// The output layer's vocabulary shortlist (as Bergamot's lexical shortlists): for each source
// piece, the target pieces it most often comes with in the training pairs, plus the most
// frequent target pieces for every sentence. The runtime then computes logits for a sentence's
// candidates only (runtime/src/network.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "export/model_writer.h"
#include "train/parallel_data.h"

namespace pmt::exporter {

// The defaults were chosen on the general model's validation sets (docs/model-format.md): for
// that model, short lists score best.
struct ShortlistOptions {
  size_t frequent = 25;      // target pieces always candidates: the most frequent ones
  size_t per_source = 5;     // best other target pieces kept per source piece
  uint32_t min_pairs = 2;    // a (source, target) piece pair must share this many sentence pairs
};

// Counts, over the sentence pairs of `data` (EOS left out), in how many pairs each source piece
// s, each target piece t and each (s, t) occur together, and keeps for each s the per_source
// targets t outside `frequent` with the highest Dice coefficient 2 c(s,t) / (c(s) + c(t))
// (ties: lower id first), ascending by id. Deterministic. vocab_size <= 65536 (targets are
// stored as 16 bits); returns an error message or empty.
std::string build_shortlist(const train::ParallelData& data, int32_t vocab_size, int32_t eos_id,
                            const ShortlistOptions& options, Shortlist* out);

}  // namespace pmt::exporter
