#include "spm_model.h"

#include <cstring>

namespace pmt::rt {
namespace {

// A protobuf message's fields, one at a time. Wire types: 0 varint, 1 fixed64, 2 length-delimited,
// 5 fixed32 (3 and 4, groups, are not used by sentencepiece_model.proto).
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : p_(bytes) {}

  // False at the end of the message; sets error() when the next field is malformed.
  bool next() {
    if (p_.empty() || !error_.empty()) return false;
    uint64_t key = 0;
    if (!varint(&key)) return false;
    field_ = static_cast<uint32_t>(key >> 3);
    wire_ = static_cast<int>(key & 7);
    switch (wire_) {
      case 0: return varint(&value_);
      case 1: return fixed(8);
      case 2: {
        uint64_t n = 0;
        if (!varint(&n)) return false;
        if (n > p_.size()) return fail("a length-delimited field runs past the end");
        bytes_ = p_.substr(0, n);
        p_.remove_prefix(n);
        return true;
      }
      case 5: return fixed(4);
      default: return fail("unsupported wire type " + std::to_string(wire_));
    }
  }
  uint32_t field() const { return field_; }
  int wire() const { return wire_; }
  uint64_t value() const { return value_; }        // wire 0, and wire 1 / 5 as raw bits
  std::string_view bytes() const { return bytes_; }  // wire 2
  float as_float() const {
    const auto bits = static_cast<uint32_t>(value_);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const std::string& error() const { return error_; }

 private:
  bool fail(std::string what) {
    error_ = std::move(what);
    return false;
  }
  bool varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_.empty()) return fail("a varint runs past the end");
      const auto b = static_cast<uint8_t>(p_.front());
      p_.remove_prefix(1);
      *v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (b < 0x80) return true;
    }
    return fail("a varint is longer than 10 bytes");
  }
  bool fixed(size_t n) {
    if (p_.size() < n) return fail("a fixed-width field runs past the end");
    value_ = 0;
    for (size_t i = 0; i < n; ++i) value_ |= static_cast<uint64_t>(static_cast<uint8_t>(p_[i])) << (8 * i);
    p_.remove_prefix(n);
    return true;
  }

  std::string_view p_, bytes_;
  uint32_t field_ = 0;
  int wire_ = 0;
  uint64_t value_ = 0;
  std::string error_;
};

// Every field of a nested message is optional in proto2; a field of an unexpected wire type is
// an error, as protobuf's own parser would report it.
std::string expect(const WireReader& r, int wire, const char* name) {
  return r.wire() == wire ? std::string() : std::string(name) + " has wire type " + std::to_string(r.wire());
}

std::string parse_piece(std::string_view bytes, SpmModel* m) {
  std::string_view piece;
  float score = 0;
  uint64_t type = static_cast<uint64_t>(PieceType::kNormal);
  WireReader r(bytes);
  while (r.next()) {
    std::string err;
    switch (r.field()) {
      case 1: err = expect(r, 2, "piece"); piece = r.bytes(); break;
      case 2: err = expect(r, 5, "score"); score = r.as_float(); break;
      case 3: err = expect(r, 0, "type"); type = r.value(); break;
      default: break;
    }
    if (!err.empty()) return err;
  }
  if (!r.error().empty()) return r.error();
  if (type < 1 || type > 6) return "piece " + std::to_string(m->pieces.size()) + " has unknown type " + std::to_string(type);
  m->pieces.push_back(piece);
  m->scores.push_back(score);
  m->types.push_back(static_cast<PieceType>(type));
  return {};
}

std::string parse_trainer_spec(std::string_view bytes, SpmModel* m) {
  WireReader r(bytes);
  while (r.next()) {
    std::string err;
    switch (r.field()) {
      case 3: err = expect(r, 0, "model_type"); m->unigram = r.value() == 1; break;
      case 24: err = expect(r, 0, "treat_whitespace_as_suffix"); m->whitespace_as_suffix = r.value() != 0; break;
      case 35: err = expect(r, 0, "byte_fallback"); m->byte_fallback = r.value() != 0; break;
      case 44: err = expect(r, 2, "unk_surface"); m->unk_surface = r.bytes(); break;
      default: break;
    }
    if (!err.empty()) return err;
  }
  return r.error();
}

std::string parse_normalizer_spec(std::string_view bytes, SpmModel::Normalizer* n) {
  WireReader r(bytes);
  while (r.next()) {
    std::string err;
    switch (r.field()) {
      case 2: err = expect(r, 2, "precompiled_charsmap"); n->charsmap = r.bytes(); break;
      case 3: err = expect(r, 0, "add_dummy_prefix"); n->add_dummy_prefix = r.value() != 0; break;
      case 4: err = expect(r, 0, "remove_extra_whitespaces"); n->remove_extra_whitespaces = r.value() != 0; break;
      case 5: err = expect(r, 0, "escape_whitespaces"); n->escape_whitespaces = r.value() != 0; break;
      default: break;
    }
    if (!err.empty()) return err;
  }
  return r.error();
}

}  // namespace

std::string parse_spm_model(std::string_view serialized, SpmModel* out) {
  SpmModel m;
  WireReader r(serialized);
  while (r.next()) {
    std::string err;
    switch (r.field()) {
      case 1: err = expect(r, 2, "pieces"); if (err.empty()) err = parse_piece(r.bytes(), &m); break;
      case 2: err = expect(r, 2, "trainer_spec"); if (err.empty()) err = parse_trainer_spec(r.bytes(), &m); break;
      case 3:
        err = expect(r, 2, "normalizer_spec");
        if (err.empty()) err = parse_normalizer_spec(r.bytes(), &m.normalizer);
        break;
      case 5: {
        SpmModel::Normalizer denormalizer;
        err = expect(r, 2, "denormalizer_spec");
        if (err.empty()) err = parse_normalizer_spec(r.bytes(), &denormalizer);
        m.denormalizer = !denormalizer.charsmap.empty();
        break;
      }
      default: break;
    }
    if (!err.empty()) return err;
  }
  if (!r.error().empty()) return r.error();
  *out = std::move(m);
  return {};
}

}  // namespace pmt::rt
