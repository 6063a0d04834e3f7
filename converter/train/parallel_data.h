// A parallel corpus as token ids, encoded once before training: reading the line-aligned text
// files, checking them, SentencePiece encoding, and the max_len policy for over-long pairs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pocketmt/config.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace pmt::train {

// Sentence pairs as ids, stored back to back in one vector. Every source ends with EOS; every
// target holds its pieces followed by EOS, so the decoder sees tgt_in = BOS + pieces and predicts
// tgt_out = pieces + EOS, both of length tgt_len.
struct ParallelData {
  struct Pair {
    uint32_t src_begin = 0, src_len = 0;  // offsets into tokens; src_len counts the EOS
    uint32_t tgt_begin = 0, tgt_len = 0;  // tgt_len = pieces + 1 (the EOS) = T
  };
  std::vector<int32_t> tokens;
  std::vector<Pair> pairs;
  // Target text per pair (the BLEU reference) for evaluation sets; empty for training data.
  std::vector<std::string> references;

  std::span<const int32_t> src(size_t i) const { return {tokens.data() + pairs[i].src_begin, pairs[i].src_len}; }
  std::span<const int32_t> tgt(size_t i) const { return {tokens.data() + pairs[i].tgt_begin, pairs[i].tgt_len}; }
  size_t size() const { return pairs.size(); }

  // Appends one pair (ids without EOS; EOS is added here).
  void add(std::span<const int32_t> src_pieces, std::span<const int32_t> tgt_pieces);
};

// What to do with a pair whose source (with EOS) or target (with EOS) exceeds max_len tokens.
// Training drops them (a cut target would teach wrong endings); evaluation truncates them so
// every reference still counts in BLEU.
enum class LengthPolicy { kDrop, kTruncate };

struct LoadStats {
  int64_t lines = 0;       // pairs read from the files
  int64_t empty = 0;       // dropped: a side is empty (no pieces)
  int64_t too_long = 0;    // dropped (kDrop) or truncated (kTruncate) for max_len
  int64_t kept = 0;
};

// Reads `<prefix>.<src_lang>` and `<prefix>.<tgt_lang>` (one sentence per line, same line count,
// UTF-8), encodes both sides with `sp` and applies `policy` for max_len. Keeps the target text as
// references when `keep_references`. Returns an error message naming the file and line, or empty.
std::string load_parallel(const std::string& prefix, const std::string& src_lang, const std::string& tgt_lang,
                          const sentencepiece::SentencePieceProcessor& sp, int32_t max_len, LengthPolicy policy,
                          bool keep_references, ParallelData* out, LoadStats* stats);

// Checks that a SentencePiece model matches the model config: piece count == vocab_size and the
// special ids pad/unk/bos/eos equal the config's. Returns an error message or empty.
std::string check_vocabulary(const sentencepiece::SentencePieceProcessor& sp, const ModelConfig& config);

}  // namespace pmt::train
