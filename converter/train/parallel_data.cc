#include "train/parallel_data.h"

#include <sentencepiece_processor.h>

#include <algorithm>

#include "common/text_lines.h"

namespace pmt::train {

void ParallelData::add(std::span<const int32_t> src_pieces, std::span<const int32_t> tgt_pieces) {
  Pair p;
  p.src_begin = static_cast<uint32_t>(tokens.size());
  p.src_len = static_cast<uint32_t>(src_pieces.size() + 1);
  tokens.insert(tokens.end(), src_pieces.begin(), src_pieces.end());
  tokens.push_back(kEosId);
  p.tgt_begin = static_cast<uint32_t>(tokens.size());
  p.tgt_len = static_cast<uint32_t>(tgt_pieces.size() + 1);
  tokens.insert(tokens.end(), tgt_pieces.begin(), tgt_pieces.end());
  tokens.push_back(kEosId);
  pairs.push_back(p);
}

std::string check_vocabulary(const sentencepiece::SentencePieceProcessor& sp, const ModelConfig& config) {
  if (sp.GetPieceSize() != config.vocab_size)
    return "the SentencePiece model has " + std::to_string(sp.GetPieceSize()) + " pieces but the model config has vocab_size " +
           std::to_string(config.vocab_size);
  const struct { const char* name; int spm, cfg; } ids[] = {{"pad", sp.pad_id(), config.pad_id},
                                                            {"unk", sp.unk_id(), config.unk_id},
                                                            {"bos", sp.bos_id(), config.bos_id},
                                                            {"eos", sp.eos_id(), config.eos_id}};
  for (const auto& id : ids) {
    if (id.spm != id.cfg)
      return std::string("the SentencePiece model's ") + id.name + " id is " + std::to_string(id.spm) + ", expected " +
             std::to_string(id.cfg);
  }
  return {};
}

std::string load_parallel(const std::string& prefix, const std::string& src_lang, const std::string& tgt_lang,
                          const sentencepiece::SentencePieceProcessor& sp, int32_t max_len, LengthPolicy policy,
                          bool keep_references, ParallelData* out, LoadStats* stats) {
  const std::string src_path = prefix + "." + src_lang, tgt_path = prefix + "." + tgt_lang;
  std::vector<std::string> src_lines, tgt_lines;
  if (std::string err = read_lines(src_path, &src_lines); !err.empty()) return err;
  if (std::string err = read_lines(tgt_path, &tgt_lines); !err.empty()) return err;
  if (src_lines.size() != tgt_lines.size())
    return src_path + " has " + std::to_string(src_lines.size()) + " lines but " + tgt_path + " has " +
           std::to_string(tgt_lines.size());
  if (src_lines.empty()) return src_path + " is empty";

  *out = ParallelData{};
  *stats = LoadStats{};
  stats->lines = static_cast<int64_t>(src_lines.size());
  // Pieces allowed before the EOS that every sequence gets.
  const size_t max_pieces = static_cast<size_t>(max_len) - 1;
  auto encode = [&sp](const std::string& line, std::vector<int>* ids, const std::string& path, size_t index) {
    const auto status = sp.Encode(line, ids);
    return status.ok() ? std::string() : path + ":" + std::to_string(index + 1) + ": SentencePiece: " + status.ToString();
  };
  std::vector<int> src_ids, tgt_ids;
  for (size_t i = 0; i < src_lines.size(); ++i) {
    if (std::string err = encode(src_lines[i], &src_ids, src_path, i); !err.empty()) return err;
    if (std::string err = encode(tgt_lines[i], &tgt_ids, tgt_path, i); !err.empty()) return err;
    if (src_ids.empty() || tgt_ids.empty()) {
      ++stats->empty;
      continue;
    }
    if (src_ids.size() > max_pieces || tgt_ids.size() > max_pieces) {
      ++stats->too_long;
      if (policy == LengthPolicy::kDrop) continue;
      src_ids.resize(std::min(src_ids.size(), max_pieces));
      tgt_ids.resize(std::min(tgt_ids.size(), max_pieces));
    }
    out->add(src_ids, tgt_ids);
    if (keep_references) out->references.push_back(std::move(tgt_lines[i]));
  }
  stats->kept = static_cast<int64_t>(out->size());
  if (out->pairs.empty()) return prefix + ": no usable sentence pairs";
  return {};
}

}  // namespace pmt::train
