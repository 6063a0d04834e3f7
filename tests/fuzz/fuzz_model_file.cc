// The model loader on arbitrary bytes. A mutated byte almost always breaks the CRC-32, which
// would stop every input at the checksum; so when the FlatBuffer verifies, the checksum is
// recomputed over the mutation (anyone can do the same), and the semantic checks, operator
// creation and a translation run on what passes. Seeds: tests/fuzz/corpus/model_file/.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "micro_model.h"
#include "pocketmt/model_file.h"
#include "pocketmt/pmt_generated.h"
#include "pocketmt/translator.h"

namespace {

void reseal(uint8_t* data, size_t size) {
  flatbuffers::Verifier verifier(data, size);
  if (!pmt::fb::VerifyModelBuffer(verifier)) return;
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(pmt::fb::GetModel(data));
  const uint8_t* field = table->GetAddressOf(pmt::fb::Model::VT_CRC32);
  if (field == nullptr) return;
  const size_t at = static_cast<size_t>(field - data);
  std::memset(data + at, 0, 4);
  const uint32_t crc = pmt::crc32(data, size);
  std::memcpy(data + at, &crc, 4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pmt::fuzz::AlignedBuffer buffer(data, size);
  if (size > 8) reseal(buffer.bytes.get(), size);
  std::unique_ptr<pmt::Translator> t;
  const pmt::LoadOptions limits{.max_batch = 2, .max_src_len = 8, .max_tgt_len = 8, .max_beam = 2};
  if (!pmt::Translator::load(buffer.bytes.get(), size, limits, &t).ok()) return 0;
  const std::string_view sentences[] = {"abc de", "fg"};
  if (!t->translate(sentences, {.beam = 2}).ok()) std::abort();  // valid call, loaded model
  return 0;
}
