#include "spm_normalizer.h"

#include <cstring>

#include "utf8.h"

namespace pmt::rt {
namespace {

// A Darts-clone unit: a label (the byte that leads here, with bit 31 set on leaves), a leaf flag,
// an offset to the children, or for a leaf its value.
bool has_leaf(uint32_t u) { return (u >> 8) & 1; }
uint32_t value(uint32_t u) { return u & 0x7FFFFFFFu; }
uint32_t label(uint32_t u) { return u & 0x800000FFu; }
uint32_t offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

}  // namespace

std::string SpmNormalizer::load(const SpmModel& model) {
  const SpmModel::Normalizer& spec = model.normalizer;
  add_dummy_prefix_ = spec.add_dummy_prefix && !model.whitespace_as_suffix;
  remove_extra_whitespaces_ = spec.remove_extra_whitespaces;
  escape_whitespaces_ = spec.escape_whitespaces;
  units_.clear();
  replacements_.clear();
  const std::string_view blob = spec.charsmap;
  if (blob.empty()) return {};  // the identity: every character as it is
  // Layout: u32 trie size in bytes, the trie's u32 units, the replacement strings; little-endian,
  // read as is (the runtime's model data is little-endian, model_file.cc).
  uint32_t trie_bytes = 0;
  if (blob.size() < 4) return "the tokenizer's character map is truncated";
  std::memcpy(&trie_bytes, blob.data(), 4);
  if (trie_bytes % 4 != 0 || trie_bytes == 0 || trie_bytes > blob.size() - 4)
    return "the tokenizer's character map has a bad trie size";
  units_.resize(trie_bytes / 4);
  std::memcpy(units_.data(), blob.data() + 4, trie_bytes);
  replacements_.assign(blob.substr(4 + trie_bytes));
  replacements_ += '\0';  // a last string without its NUL still ends
  return {};
}

std::pair<size_t, uint32_t> SpmNormalizer::longest_match(std::string_view input) const {
  size_t best_length = 0;
  uint32_t best_value = 0;
  if (units_.empty()) return {0, 0};
  size_t pos = offset(units_[0]);
  for (size_t i = 0; i < input.size(); ++i) {
    const auto c = static_cast<uint8_t>(input[i]);
    pos ^= c;
    if (pos >= units_.size()) break;  // a malformed trie ends the search instead of reading past it
    const uint32_t u = units_[pos];
    if (label(u) != c) break;
    pos ^= offset(u);
    if (pos >= units_.size()) break;
    if (has_leaf(u)) {
      best_length = i + 1;
      best_value = value(units_[pos]);
    }
  }
  return {best_length, best_value};
}

std::pair<std::string_view, size_t> SpmNormalizer::normalize_prefix(std::string_view input) const {
  const auto [length, value] = longest_match(input);
  if (length > 0 && value < replacements_.size())
    return {std::string_view(replacements_.data() + value), length};
  const size_t n = utf8_char_length(input);
  if (n == 0) return {kReplacementChar, 1};
  return {input.substr(0, n), n};
}

void SpmNormalizer::normalize(std::string_view input, std::string* out) const {
  out->clear();
  if (remove_extra_whitespaces_) {
    while (!input.empty()) {
      const auto [text, n] = normalize_prefix(input);
      if (text != " ") break;
      input.remove_prefix(n);
    }
  }
  if (input.empty()) return;
  const std::string_view space = escape_whitespaces_ ? kWordMark : " ";
  if (add_dummy_prefix_) out->append(space);
  bool prev_space = remove_extra_whitespaces_;
  while (!input.empty()) {
    auto [text, n] = normalize_prefix(input);
    input.remove_prefix(n);
    if (prev_space)
      while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (!text.empty()) {
      for (const char c : text) {
        if (c == ' ') out->append(space);
        else out->push_back(c);
      }
      prev_space = text.back() == ' ';
    }
    if (!remove_extra_whitespaces_) prev_space = false;
  }
  if (remove_extra_whitespaces_)
    while (out->size() >= space.size() && std::string_view(*out).substr(out->size() - space.size()) == space)
      out->resize(out->size() - space.size());
}

}  // namespace pmt::rt
