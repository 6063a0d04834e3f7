// The string path on arbitrary bytes: validation, SentencePiece encode, search and decode, with
// the call options taken from the first bytes. Invariants: the call succeeds, one result per
// sentence, an accepted sentence's text decodes from its tokens, a rejected one has no text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "micro_model.h"
#include "pocketmt/translator.h"

namespace {

constexpr int32_t kBatch = 3;

pmt::Translator& translator(bool int8) {
  static std::unique_ptr<pmt::Translator> t[2];
  static std::unique_ptr<pmt::fuzz::AlignedBuffer> bytes[2];
  if (!t[int8]) {
    const auto model = pmt::fuzz::micro_model(int8 ? pmt::DType::I8 : pmt::DType::F32);
    bytes[int8] = std::make_unique<pmt::fuzz::AlignedBuffer>(model.data(), model.size());
    const pmt::LoadOptions limits{.max_batch = kBatch, .max_src_len = 16, .max_tgt_len = 12, .max_beam = 3};
    if (!pmt::Translator::load(bytes[int8]->bytes.get(), bytes[int8]->size, limits, &t[int8]).ok()) std::abort();
  }
  return *t[int8];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  pmt::Translator& t = translator(data[0] & 1);
  const pmt::TranslateOptions options{.beam = 1 + (data[0] >> 1) % 3, .alpha = (data[1] % 8) / 4.f,
                                      .max_len = data[1] / 8 % 13};
  // The rest: up to kBatch sentences separated by '\n' (NUL and every other byte kept).
  std::vector<std::string_view> sentences;
  std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  while (static_cast<int32_t>(sentences.size()) < kBatch) {
    const size_t end = rest.find('\n');
    sentences.push_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  if (!t.translate(sentences, options).ok()) std::abort();
  if (t.results().size() != sentences.size()) std::abort();
  for (const pmt::Translation& r : t.results()) {
    if (!r.status.ok() && !r.text.empty()) std::abort();
    if (r.tokens.empty() && !r.text.empty()) std::abort();
  }
  return 0;
}
