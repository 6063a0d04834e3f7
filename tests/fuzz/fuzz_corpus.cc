// The corpus readers on arbitrary bytes: the SWORD IMP dump parser and verse keys, the OSIS
// stripper, the RV1909 clean-ups, the UTF-8 checks, and load_parallel on the input cut into an
// English and a Spanish file (encoded with the fixture's SentencePiece model).
#include <sentencepiece_processor.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "corpus/osis_text.h"
#include "corpus/rv1909_text.h"
#include "corpus/sword_module.h"
#include "corpus/utf8.h"
#include "train/parallel_data.h"

namespace {

const sentencepiece::SentencePieceProcessor& processor() {
  static const auto* sp = [] {
    auto* p = new sentencepiece::SentencePieceProcessor;
    if (!p->Load(PMT_TEST_DATA_DIR "/tiny_spm64.model").ok()) std::abort();
    return p;
  }();
  return *sp;
}

void write(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out.flush()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const pmt::corpus::ImpEntry& e : pmt::corpus::parse_imp(text)) {
    pmt::corpus::VerseRef ref;
    pmt::corpus::parse_verse_ref(e.key, &ref);
    pmt::corpus::has_subscription(e.osis);
    const std::string plain = pmt::corpus::osis_to_text(e.osis);
    pmt::corpus::cut_subscription(plain);
    pmt::corpus::WordCaseCounts counts;
    counts.add_text(plain);
    pmt::corpus::recase_chapter_opening(plain, counts);
  }
  pmt::text::split_on_space(text);
  pmt::text::encode_utf8(pmt::text::decode_utf8(text));

  // A parallel corpus: the bytes before the first NUL are the English side, the rest Spanish.
  static const std::string prefix = [] {
    static std::string p = "/tmp/pmt_fuzz_corpus_" + std::to_string(getpid());
    std::atexit([] {
      std::remove((p + ".en").c_str());
      std::remove((p + ".es").c_str());
    });
    return p;
  }();
  const size_t cut = text.find('\0');
  write(prefix + ".en", text.substr(0, cut));
  write(prefix + ".es", cut == std::string_view::npos ? std::string_view{} : text.substr(cut + 1));
  pmt::train::ParallelData pairs;
  pmt::train::LoadStats stats;
  const std::string error = pmt::train::load_parallel(prefix, "en", "es", processor(), 16,
                                                      pmt::train::LengthPolicy::kDrop, true, &pairs, &stats);
  if (error.empty() && static_cast<int64_t>(pairs.size()) > stats.lines) std::abort();
  return 0;
}
