// The runtime's SentencePiece reader and tokenizer on arbitrary bytes: the first byte gives the
// length n of a text, the next n bytes are the text, the rest is the serialized model (seeded
// with the fixture's). A model that loads must encode to ids inside the vocabulary, and decode
// those ids (and the raw input bytes as ids) without error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "pocketmt/config.h"
#include "tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t n = std::min<size_t>(data[0], size - 1);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, n);
  const std::string_view model(reinterpret_cast<const char*>(data) + 1 + n, size - 1 - n);
  static const pmt::ModelConfig config = [] {
    pmt::ModelConfig c;
    if (!pmt::preset_config("tiny", &c)) std::abort();
    return c;
  }();
  pmt::rt::Tokenizer tok;
  if (!tok.load(model, config).empty()) return 0;
  std::vector<int> ids;
  std::string error, out;
  if (!tok.encode(text, &ids, &error)) std::abort();
  for (const int id : ids)
    if (id < 0 || id >= config.vocab_size) std::abort();
  if (!tok.decode(ids, &out, &error)) std::abort();
  std::vector<int> raw(text.begin(), text.end());
  for (int& id : raw) id &= 63;
  if (!tok.decode(raw, &out, &error)) std::abort();
  for (const int id : ids) (void)tok.piece_text(id, true);
  return 0;
}
