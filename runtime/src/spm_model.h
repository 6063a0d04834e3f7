// The parts of a serialized SentencePiece ModelProto that encoding and decoding need, read from
// the protobuf wire format directly (sentencepiece_model.proto, proto2): the runtime carries no
// protobuf or SentencePiece library. Fields: ModelProto.pieces = 1 {piece = 1, score = 2,
// type = 3}, trainer_spec = 2 {model_type = 3, treat_whitespace_as_suffix = 24, byte_fallback =
// 35, unk_surface = 44}, normalizer_spec = 3 {name = 1, precompiled_charsmap = 2,
// add_dummy_prefix = 3, remove_extra_whitespaces = 4, escape_whitespaces = 5}, denormalizer_spec
// = 5; everything else is skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pmt::rt {

inline constexpr std::string_view kWordMark = "\xE2\x96\x81";         // U+2581, SentencePiece's space
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD, for malformed bytes

// SentencePiece's piece types (ModelProto.SentencePiece.Type).
enum class PieceType : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

struct SpmModel {
  std::vector<std::string_view> pieces;  // views of the serialized bytes, by id
  std::vector<float> scores;             // by id
  std::vector<PieceType> types;          // by id
  bool unigram = true;                   // trainer_spec.model_type == UNIGRAM (the default)
  bool whitespace_as_suffix = false;
  bool byte_fallback = false;
  std::string_view unk_surface = " \xE2\x81\x87 ";  // what decoding writes for <unk>
  struct Normalizer {
    std::string_view charsmap;  // precompiled_charsmap, may be empty
    bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
  };
  Normalizer normalizer;
  bool denormalizer = false;  // a denormalizer_spec with a charsmap (not supported)
};

// Reads `serialized` (which the views point into: keep it alive while they are used). Empty
// string on success, otherwise what is malformed (truncated field, bad wire type, ...).
std::string parse_spm_model(std::string_view serialized, SpmModel* out);

}  // namespace pmt::rt
