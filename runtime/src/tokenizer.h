// The model's SentencePiece tokenizer, loaded from the bytes inside the model file, plus the
// text of every piece for streaming output.
#pragma once

#include <sentencepiece_processor.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/config.h"

namespace pmt::rt {

class Tokenizer {
 public:
  // Parses the serialized ModelProto and checks it against the model's vocabulary size and
  // special ids. Empty string or the reason it does not fit.
  std::string load(std::string_view serialized, const ModelConfig& config);

  // Text to ids (no BOS/EOS). `text` must be valid UTF-8. False with *error on failure.
  bool encode(std::string_view text, std::vector<int>* ids, std::string* error) const;
  // Ids to text.
  bool decode(const std::vector<int>& ids, std::string* text, std::string* error) const;

  // The text of token `id` as it appears in the output (U+2581 as a space, byte pieces as their
  // byte, control tokens empty), without the leading space when it starts the sentence.
  std::string_view piece_text(int32_t id, bool first) const;

 private:
  sentencepiece::SentencePieceProcessor sp_;
  std::string pieces_;              // every piece's text, back to back
  std::vector<uint32_t> offsets_;   // id -> [offsets_[id], offsets_[id + 1]) in pieces_
};

}  // namespace pmt::rt
