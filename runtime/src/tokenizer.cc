#include "tokenizer.h"

#include <algorithm>
#include <cfloat>

#include "utf8.h"

namespace pmt::rt {
namespace {

constexpr float kUnknownPenalty = 10.f;  // an unknown character scores the lowest piece's score minus this

// Appends `piece` with every word mark written as a space.
void append_surface(std::string_view piece, std::string* out) {
  for (size_t i = 0; i < piece.size();) {
    if (piece.substr(i, kWordMark.size()) == kWordMark) {
      *out += ' ';
      i += kWordMark.size();
    } else {
      *out += piece[i++];
    }
  }
}

// The byte of a byte piece "<0xAB>", or -1 when `piece` is not one.
int piece_byte(std::string_view piece) {
  const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>') return -1;
  const int hi = hex(piece[3]), lo = hex(piece[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// The bytes a character takes by its first byte, as SentencePiece steps through a string (a
// stray byte counts as one).
size_t char_length(uint8_t first) {
  return first < 0xC0 ? 1 : first < 0xE0 ? 2 : first < 0xF0 ? 3 : 4;
}

}  // namespace

std::string Tokenizer::load(std::string_view serialized, const ModelConfig& config) {
  SpmModel m;
  if (std::string err = parse_spm_model(serialized, &m); !err.empty()) return "cannot load the tokenizer: " + err;
  if (!m.unigram) return "the tokenizer is not a unigram SentencePiece model";
  if (m.whitespace_as_suffix || m.denormalizer)
    return "the tokenizer uses SentencePiece options the runtime does not support (whitespace as suffix, denormalizer)";
  const auto vocab = static_cast<int32_t>(m.pieces.size());
  if (vocab != config.vocab_size)
    return "the tokenizer has " + std::to_string(vocab) + " pieces but the model's vocabulary is " +
           std::to_string(config.vocab_size);
  const auto is = [&](int32_t id, PieceType t) { return id >= 0 && id < vocab && m.types[id] == t; };
  if (std::count(m.types.begin(), m.types.end(), PieceType::kUnknown) != 1 || !is(config.unk_id, PieceType::kUnknown) ||
      !is(config.eos_id, PieceType::kControl) || (config.bos_id >= 0 && !is(config.bos_id, PieceType::kControl)))
    return "the tokenizer's special ids differ from the model's";
  if (std::find(m.types.begin(), m.types.end(), PieceType::kUserDefined) != m.types.end())
    return "the tokenizer has user-defined pieces, which the runtime does not support";
  if (std::string err = normalizer_.load(m); !err.empty()) return err;

  pieces_.clear();
  piece_offsets_.assign(1, 0);
  surfaces_.clear();
  surface_offsets_.assign(1, 0);
  byte_ids_.fill(-1);
  float min_score = FLT_MAX;
  for (int32_t id = 0; id < vocab; ++id) {
    const std::string_view p = m.pieces[id];
    if (p.empty()) return "the tokenizer has an empty piece (id " + std::to_string(id) + ")";
    pieces_ += p;
    piece_offsets_.push_back(static_cast<uint32_t>(pieces_.size()));
    switch (m.types[id]) {
      case PieceType::kByte: {
        const int b = piece_byte(p);
        if (b < 0 || byte_ids_[b] >= 0) return "the tokenizer has a malformed byte piece (id " + std::to_string(id) + ")";
        byte_ids_[b] = id;
        surfaces_ += static_cast<char>(b);  // consecutive byte pieces concatenate to UTF-8
        break;
      }
      case PieceType::kUnknown: surfaces_ += m.unk_surface; break;
      case PieceType::kControl: break;
      case PieceType::kNormal: min_score = std::min(min_score, m.scores[id]); [[fallthrough]];
      default: append_surface(p, &surfaces_); break;
    }
    surface_offsets_.push_back(static_cast<uint32_t>(surfaces_.size()));
  }
  byte_fallback_ = m.byte_fallback;
  if (byte_fallback_ && std::count(byte_ids_.begin(), byte_ids_.end(), -1) > 0)
    return "the tokenizer falls back to bytes but lacks byte pieces";
  scores_.assign(m.scores.begin(), m.scores.end());
  types_.assign(m.types.begin(), m.types.end());
  unk_id_ = config.unk_id;
  unk_score_ = min_score - kUnknownPenalty;
  unk_surface_.assign(m.unk_surface);
  strip_leading_space_ = m.normalizer.add_dummy_prefix || m.normalizer.remove_extra_whitespaces;
  remove_extra_whitespaces_ = m.normalizer.remove_extra_whitespaces;
  matchable_.clear();
  for (int32_t id = 0; id < vocab; ++id)
    if (types_[id] == PieceType::kNormal || types_[id] == PieceType::kUnused) matchable_.push_back(id);
  std::sort(matchable_.begin(), matchable_.end(), [&](int32_t a, int32_t b) { return piece(a) < piece(b); });
  for (size_t i = 1; i < matchable_.size(); ++i)
    if (piece(matchable_[i - 1]) == piece(matchable_[i])) return "the tokenizer has a duplicate piece";
  return {};
}

bool Tokenizer::encode(std::string_view text, std::vector<int>* ids, std::string* /*error*/) const {
  ids->clear();
  std::string s;
  normalizer_.normalize(text, &s);
  const size_t n = s.size();
  // best[e]: the best segmentation of s[0, e): its score, and its last piece [start, e) with id.
  struct Node {
    int32_t id = -1;
    float score = 0;
    int32_t start = -1;
  };
  std::vector<Node> best(n + 1);
  const auto byte_at = [&](int32_t id, size_t k) { return static_cast<uint8_t>(piece(id)[k]); };
  for (size_t start = 0; start < n;) {
    const float base = best[start].score;
    const size_t char_len = std::min(char_length(static_cast<uint8_t>(s[start])), n - start);
    bool has_char_piece = false;
    // Every piece that prefixes s[start, n), shortest first: [lo, hi) are the pieces sharing the
    // first k bytes; the piece of exactly k bytes, if any, is first among them.
    auto lo = matchable_.begin(), hi = matchable_.end();
    for (size_t k = 0; start + k < n && lo != hi; ++k) {
      const auto c = static_cast<uint8_t>(s[start + k]);
      lo = std::partition_point(lo, hi, [&](int32_t id) { return piece(id).size() <= k || byte_at(id, k) < c; });
      hi = std::partition_point(lo, hi, [&](int32_t id) { return byte_at(id, k) == c; });
      if (lo == hi || piece(*lo).size() != k + 1 || types_[*lo] == PieceType::kUnused) continue;
      Node& end = best[start + k + 1];
      const float score = scores_[*lo] + base;
      if (end.start < 0 || score > end.score) end = {*lo, score, static_cast<int32_t>(start)};
      if (k + 1 == char_len) has_char_piece = true;
    }
    if (!has_char_piece) {
      Node& end = best[start + char_len];
      const float score = unk_score_ + base;
      if (end.start < 0 || score > end.score) end = {unk_id_, score, static_cast<int32_t>(start)};
    }
    start += char_len;
  }
  for (size_t e = n; e > 0; e = static_cast<size_t>(best[e].start)) {
    const Node& node = best[e];
    if (node.id != unk_id_) {
      ids->push_back(node.id);
    } else if (byte_fallback_) {
      for (size_t i = e; i-- > static_cast<size_t>(node.start);) ids->push_back(byte_ids_[static_cast<uint8_t>(s[i])]);
    } else if (ids->empty() || ids->back() != unk_id_) {
      ids->push_back(unk_id_);  // a run of unknown characters is one unknown token
    }
  }
  std::reverse(ids->begin(), ids->end());
  return true;
}

void Tokenizer::append_bytes(std::string_view bytes, std::string* text) {
  while (!bytes.empty()) {
    const size_t n = utf8_char_length(bytes);
    if (n == 0) {
      *text += kReplacementChar;
      bytes.remove_prefix(1);
    } else {
      *text += bytes.substr(0, n);
      bytes.remove_prefix(n);
    }
  }
}

bool Tokenizer::decode(const std::vector<int>& ids, std::string* text, std::string* error) const {
  text->clear();
  std::string bytes;  // the pending run of byte pieces
  // Until some text is written, pieces lose their leading word mark: the normalizer's dummy
  // prefix, or (removing extra whitespace) any space before the first word.
  bool at_start = true;
  for (const int id : ids) {
    if (id < 0 || id >= static_cast<int>(types_.size())) {
      *error = "token id " + std::to_string(id) + " is outside the vocabulary";
      return false;
    }
    if (types_[id] == PieceType::kByte) {
      bytes += piece_text(id, false);
      continue;
    }
    append_bytes(bytes, text);
    bytes.clear();
    if (!text->empty()) at_start = false;
    if (types_[id] == PieceType::kControl) continue;
    if (types_[id] == PieceType::kUnknown) {
      *text += unk_surface_;
    } else {
      std::string_view p = piece(id);
      const bool strip = at_start && strip_leading_space_ && p.substr(0, kWordMark.size()) == kWordMark;
      if (strip) p.remove_prefix(kWordMark.size());
      append_surface(p, text);
      if (strip && !remove_extra_whitespaces_) at_start = false;
    }
    if (!text->empty()) at_start = false;
  }
  append_bytes(bytes, text);
  return true;
}

std::string_view Tokenizer::piece_text(int32_t id, bool first) const {
  std::string_view text(surfaces_.data() + surface_offsets_[id], surface_offsets_[id + 1] - surface_offsets_[id]);
  if (first && !text.empty() && text.front() == ' ') text.remove_prefix(1);
  return text;
}

}  // namespace pmt::rt
