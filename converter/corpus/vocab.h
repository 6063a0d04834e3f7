// The shared English+Spanish vocabulary: one SentencePiece unigram model trained with
// libsentencepiece's trainer on the training split of both languages.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pmt::corpus {

struct VocabOptions {
  int vocab_size = 8000;
};

// Trains on every line of `inputs`, read in the order given, and writes
// <model_prefix>.model and <model_prefix>.vocab. Settings: unigram model, character coverage
// 1.0 (every character of the training text gets a piece, so nothing maps to <unk> in domain),
// the special ids of pocketmt/config.h (pad 0 "<pad>", unk 1 "<unk>", bos 2 "<s>", eos 3 "</s>"),
// SentencePiece's default nmt_nfkc normalisation, all sentences used in file order (no sampling or
// shuffling), a fixed random seed and one trainer thread, so two runs on the same files write
// byte-identical models. Returns false with a message on unreadable input or a trainer error.
bool train_vocab(const std::vector<std::filesystem::path>& inputs,
                 const std::filesystem::path& model_prefix, const VocabOptions& options,
                 std::string* error);

}  // namespace pmt::corpus
