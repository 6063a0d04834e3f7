// The shared English+Spanish vocabulary: one SentencePiece unigram model trained with
// libsentencepiece's trainer on the training split of both languages.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pmt::corpus {

struct VocabOptions {
  int vocab_size = 8000;
  // Share of the characters that get a piece of their own; the rarest rest are spelled as bytes.
  std::string character_coverage = "0.9999";
};

// Trains on every line of `inputs`, read in the order given, and writes
// <model_prefix>.model, <model_prefix>.vocab and the normalization table it compiled in,
// <model_prefix>.normalization.tsv (normalization.h). Settings: unigram model, byte fallback
// (characters outside the coverage are spelled as UTF-8 byte pieces, so nothing is ever <unk>),
// digits split into single-digit pieces, the special ids of pocketmt/config.h (pad 0 "<pad>",
// unk 1 "<unk>", bos 2 "<s>", eos 3 "</s>"), all sentences used in file order (no sampling or
// shuffling), a fixed random seed and one trainer thread, so two runs on the same files write
// byte-identical models. Returns false with a message on unreadable input or a trainer error.
bool train_vocab(const std::vector<std::filesystem::path>& inputs,
                 const std::filesystem::path& model_prefix, const VocabOptions& options,
                 std::string* error);

}  // namespace pmt::corpus
