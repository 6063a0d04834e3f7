#include "tokenizer.h"

namespace pmt::rt {
namespace {

constexpr std::string_view kWordMark = "\xE2\x96\x81";  // U+2581, SentencePiece's space

// The output text of one piece: every word mark becomes a space.
std::string surface(const std::string& piece) {
  std::string out;
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, kWordMark.size(), kWordMark) == 0) {
      out += ' ';
      i += kWordMark.size();
    } else {
      out += piece[i++];
    }
  }
  return out;
}

}  // namespace

std::string Tokenizer::load(std::string_view serialized, const ModelConfig& config) {
  const auto status = sp_.LoadFromSerializedProto({serialized.data(), serialized.size()});
  if (!status.ok()) return "cannot load the tokenizer: " + status.ToString();
  if (sp_.GetPieceSize() != config.vocab_size)
    return "the tokenizer has " + std::to_string(sp_.GetPieceSize()) + " pieces but the model's vocabulary is " +
           std::to_string(config.vocab_size);
  if (sp_.eos_id() != config.eos_id || (sp_.bos_id() >= 0 && sp_.bos_id() != config.bos_id) ||
      sp_.unk_id() != config.unk_id)
    return "the tokenizer's special ids differ from the model's";

  offsets_.assign(1, 0);
  for (int id = 0; id < sp_.GetPieceSize(); ++id) {
    if (sp_.IsByte(id)) {
      // "<0xAB>": the raw byte; consecutive byte pieces concatenate to UTF-8.
      pieces_ += static_cast<char>(std::stoi(sp_.IdToPiece(id).substr(3, 2), nullptr, 16));
    } else if (sp_.IsUnknown(id)) {
      pieces_ += " \xE2\x81\x87 ";  // what SentencePiece's decoder writes for <unk>
    } else if (!sp_.IsControl(id)) {
      pieces_ += surface(sp_.IdToPiece(id));
    }
    offsets_.push_back(static_cast<uint32_t>(pieces_.size()));
  }
  return {};
}

bool Tokenizer::encode(std::string_view text, std::vector<int>* ids, std::string* error) const {
  const auto status = sp_.Encode({text.data(), text.size()}, ids);
  if (!status.ok()) *error = status.ToString();
  return status.ok();
}

bool Tokenizer::decode(const std::vector<int>& ids, std::string* text, std::string* error) const {
  const auto status = sp_.Decode(ids, text);
  if (!status.ok()) *error = status.ToString();
  return status.ok();
}

std::string_view Tokenizer::piece_text(int32_t id, bool first) const {
  std::string_view text(pieces_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]);
  if (first && !text.empty() && text.front() == ' ') text.remove_prefix(1);
  return text;
}

}  // namespace pmt::rt
