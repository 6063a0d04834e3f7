// The smallest use of the C++ API: load a model, translate each command-line argument (a
// paragraph: split into sentences, translated, put back together), print the translations.
//
//   translate_minimal models/en-es.pmt "In the beginning was the Word." "Jesus wept."
//
// Build against an installed PocketMT with CMake (find_package(PocketMT), PocketMT::runtime) or
// pkg-config (pkg-config --cflags --libs --static pocketmt). pmt-translate (tools/) is the
// full program: files, batching, streaming, progress.
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "pocketmt/text_translator.h"
#include "pocketmt/translator.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL TEXT...\n", argv[0]);
    return 2;
  }
  std::unique_ptr<pmt::Translator> translator;
  if (pmt::Status s = pmt::Translator::load(argv[1], pmt::LoadOptions{}, &translator); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message());
    return 2;
  }
  pmt::TextTranslator text(*translator);
  const std::vector<std::string_view> texts(argv + 2, argv + argc);
  if (pmt::Status s = text.translate(texts); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message());
    return 2;
  }
  for (const pmt::TextResult& r : text.results()) std::printf("%s\n", r.text.c_str());
  return 0;
}
