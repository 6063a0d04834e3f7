// The model's SentencePiece unigram tokenizer, read from the serialized model inside the model
// file and run without the SentencePiece library: the same normalization (spm_normalizer.h), the
// same best segmentation (Viterbi over piece scores, an unknown character scored min - 10, byte
// fallback), the same decoding; tests/runtime/tokenizer_test.cc checks every one against
// libsentencepiece on the shipped models. Besides, the text of every piece for streaming output.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/config.h"
#include "spm_model.h"
#include "spm_normalizer.h"

namespace pmt::rt {

class Tokenizer {
 public:
  // Parses the serialized ModelProto (unigram models; no user-defined pieces, whitespace as
  // suffix or denormalizer) and checks it against the model's vocabulary size and special ids.
  // Keeps copies of what it needs: `serialized` may go afterwards. Empty string or the reason.
  std::string load(std::string_view serialized, const ModelConfig& config);

  // Text to ids (no BOS/EOS). `text` must be valid UTF-8 (malformed bytes become U+FFFD, as in
  // SentencePiece). False with *error on failure.
  bool encode(std::string_view text, std::vector<int>* ids, std::string* error) const;
  // Ids to text. False with *error for an id outside the vocabulary.
  bool decode(const std::vector<int>& ids, std::string* text, std::string* error) const;

  // The text of token `id` as it appears in the output (U+2581 as a space, byte pieces as their
  // byte, control tokens empty), without the leading space when it starts the sentence.
  std::string_view piece_text(int32_t id, bool first) const;

 private:
  std::string_view piece(int32_t id) const {
    return std::string_view(pieces_).substr(piece_offsets_[id], piece_offsets_[id + 1] - piece_offsets_[id]);
  }
  // Appends the surface of `bytes` (a run of byte pieces): each well-formed UTF-8 character as it
  // is, each other byte as U+FFFD.
  static void append_bytes(std::string_view bytes, std::string* text);

  SpmNormalizer normalizer_;
  std::string pieces_;                    // every piece as in the model, back to back
  std::vector<uint32_t> piece_offsets_;   // id -> [piece_offsets_[id], piece_offsets_[id + 1])
  std::vector<float> scores_;
  std::vector<PieceType> types_;
  std::vector<int32_t> matchable_;        // ids of normal and unused pieces, sorted by their bytes
  std::array<int32_t, 256> byte_ids_{};   // byte fallback: the piece "<0xAB>" of each byte
  bool byte_fallback_ = false;
  int32_t unk_id_ = 0;
  float unk_score_ = 0;
  std::string unk_surface_;
  bool strip_leading_space_ = true;       // decoding drops the space the normalizer put in front
  bool remove_extra_whitespaces_ = true;  // ... and every space before the first word
  std::string surfaces_;                  // every piece's output text, back to back
  std::vector<uint32_t> surface_offsets_; // id -> [surface_offsets_[id], surface_offsets_[id + 1])
};

}  // namespace pmt::rt
