#include "corpus/vocab_extension.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "corpus/utf8.h"

namespace pmt::corpus {
namespace {

constexpr std::string_view kWordStart = "\xE2\x96\x81";  // U+2581, SentencePiece's space

// Letters only (ASCII, Latin-1 and Latin Extended-A/B), with apostrophes between letters
// ("don't"): a word with punctuation attached ("it." "¿Podría") is left to the old pieces, which
// keep punctuation apart.
bool is_plain_word(std::string_view word) {
  const auto letter = [](char32_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7);
  };
  const std::u32string chars = text::decode_utf8(word);
  for (size_t i = 0; i < chars.size(); ++i) {
    const bool apostrophe = chars[i] == '\'' && i > 0 && i + 1 < chars.size() && letter(chars[i - 1]);
    if (!apostrophe && !letter(chars[i])) return false;
  }
  return !chars.empty();
}

void put_varint(uint64_t v, std::string* out) {
  for (; v >= 0x80; v >>= 7) out->push_back(static_cast<char>((v & 0x7F) | 0x80));
  out->push_back(static_cast<char>(v));
}

}  // namespace

std::vector<WordPieces> choose_new_pieces(const sentencepiece::SentencePieceProcessor& sp,
                                          const std::vector<std::string>& lines, const ExtensionOptions& options) {
  std::map<std::string, WordPieces> words;
  std::vector<char> starts_word(static_cast<size_t>(sp.GetPieceSize()));
  for (int id = 0; id < sp.GetPieceSize(); ++id) starts_word[static_cast<size_t>(id)] = sp.IdToPiece(id).starts_with(kWordStart);
  std::vector<int> ids;
  const auto count_word = [&](size_t begin, size_t end) {
    if (end - begin < 2) return;
    std::string word;
    for (size_t i = begin; i < end; ++i) {
      if (sp.IsByte(ids[i]) || sp.IsUnknown(ids[i]) || sp.IsControl(ids[i])) return;
      word += sp.IdToPiece(ids[i]);
    }
    WordPieces& w = words[word];
    if (w.count++ == 0) {
      w.word = word;
      w.pieces.assign(ids.begin() + static_cast<std::ptrdiff_t>(begin), ids.begin() + static_cast<std::ptrdiff_t>(end));
      for (int id : w.pieces) w.old_score += sp.GetScore(id);
    }
  };
  for (const std::string& line : lines) {
    ids.clear();
    if (!sp.Encode(line, &ids).ok()) continue;
    size_t begin = 0;
    for (size_t i = 1; i <= ids.size(); ++i) {
      if (i == ids.size() || starts_word[static_cast<size_t>(ids[i])]) {
        if (starts_word[static_cast<size_t>(ids[begin])]) count_word(begin, i);
        begin = i;
      }
    }
  }
  std::vector<WordPieces> chosen;
  for (auto& [word, w] : words) {
    if (w.count < options.min_count || text::length_in_code_points(word) > options.max_chars ||
        !is_plain_word(std::string_view(word).substr(kWordStart.size())) ||
        sp.PieceToId(word) != sp.unk_id()) {
      continue;
    }
    chosen.push_back(std::move(w));
  }
  const auto saved = [](const WordPieces& w) { return w.count * static_cast<int64_t>(w.pieces.size() - 1); };
  std::sort(chosen.begin(), chosen.end(), [&](const WordPieces& a, const WordPieces& b) {
    return saved(a) != saved(b) ? saved(a) > saved(b) : a.word < b.word;
  });
  if (chosen.size() > options.max_new) chosen.resize(options.max_new);
  return chosen;
}

float new_piece_score(const WordPieces& w) {
  return w.old_score + 1.0f + 0.5f * static_cast<float>(w.pieces.size() - 1);
}

std::string append_pieces(std::string_view serialized, const std::vector<WordPieces>& words) {
  std::string out(serialized);
  for (const WordPieces& w : words) {
    std::string piece;
    piece.push_back(0x0A);  // field 1 (piece), length-delimited
    put_varint(w.word.size(), &piece);
    piece += w.word;
    piece.push_back(0x15);  // field 2 (score), 32-bit float
    const float score = new_piece_score(w);
    char bytes[4];
    std::memcpy(bytes, &score, 4);  // protobuf's fixed32 is little-endian, as every target here
    piece.append(bytes, 4);
    out.push_back(0x0A);  // ModelProto field 1 (pieces), length-delimited
    put_varint(piece.size(), &out);
    out += piece;
  }
  return out;
}

std::string extend_embedding(const std::vector<WordPieces>& words, StFile* checkpoint) {
  ModelConfig config;
  if (std::string err = config_from_metadata(checkpoint->metadata, &config); !err.empty()) return err;
  auto embed = std::find_if(checkpoint->tensors.begin(), checkpoint->tensors.end(),
                            [](const StTensor& t) { return t.name == "embed.weight"; });
  if (embed == checkpoint->tensors.end()) return "the checkpoint has no embed.weight";
  if (embed->shape.size() != 2 || embed->shape[0] != config.vocab_size) {
    return "embed.weight is not [vocab_size, d_model]";
  }
  const int64_t rows = embed->shape[0], d = embed->shape[1];
  std::vector<float>& e = embed->data;
  e.reserve(e.size() + words.size() * static_cast<size_t>(d));
  std::vector<double> mean(static_cast<size_t>(d));
  for (const WordPieces& w : words) {
    std::fill(mean.begin(), mean.end(), 0.0);
    double length = 0;
    for (int id : w.pieces) {
      if (id < 0 || id >= rows) return "piece id " + std::to_string(id) + " of '" + w.word + "' is outside the embedding";
      const float* row = e.data() + static_cast<size_t>(id) * static_cast<size_t>(d);
      double sq = 0;
      for (int64_t j = 0; j < d; ++j) {
        mean[static_cast<size_t>(j)] += row[j];
        sq += static_cast<double>(row[j]) * row[j];
      }
      length += std::sqrt(sq);
    }
    const double n = static_cast<double>(w.pieces.size());
    double sq = 0;
    for (double& m : mean) {
      m /= n;
      sq += m * m;
    }
    const double scale = sq > 0 ? (length / n) / std::sqrt(sq) : 0.0;
    for (double m : mean) e.push_back(static_cast<float>(m * scale));
  }
  embed->shape[0] = rows + static_cast<int64_t>(words.size());
  std::erase_if(checkpoint->tensors, [](const StTensor& t) { return t.name.starts_with("optim."); });
  config.vocab_size = static_cast<int32_t>(embed->shape[0]);
  checkpoint->metadata = config_to_metadata(config);
  return "";
}

}  // namespace pmt::corpus
