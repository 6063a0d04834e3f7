// pmt-probe: a fixed workload for counting instructions (scripts/arm-instructions.sh runs it
// under qemu with bench/qemu_insn_count.c): loads MODEL, then translates COUNT random-id sources
// of SRC_LEN tokens (EOS included) once each, batch 1, 1 thread, with max_len GEN_LEN, and prints
// the decoder steps run. No warm-up and no timing: two runs that differ in one argument differ
// in instructions by exactly that work (the load and the process cancel out).
//   pmt-probe MODEL SRC_LEN GEN_LEN COUNT [BEAM]
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "pocketmt/translator.h"

namespace {

// A whole decimal in [lo, hi], or -1.
long parse(const char* text, long lo, long hi) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return (*text != '\0' && *end == '\0' && v >= lo && v <= hi) ? v : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: pmt-probe MODEL SRC_LEN GEN_LEN COUNT [BEAM]\n");
    return 2;
  }
  const long src_len = parse(argv[2], 2, 4096), gen_len = parse(argv[3], 1, 4096), count = parse(argv[4], 1, 1 << 20);
  const long beam = argc == 6 ? parse(argv[5], 1, 64) : 1;
  if (src_len < 0 || gen_len < 0 || count < 0 || beam < 0) {
    std::fprintf(stderr, "pmt-probe: SRC_LEN 2..4096, GEN_LEN 1..4096, COUNT >= 1, BEAM 1..64\n");
    return 2;
  }
  pmt::LoadOptions limits;
  limits.max_src_len = static_cast<int32_t>(src_len);
  limits.max_tgt_len = static_cast<int32_t>(gen_len);
  limits.max_beam = static_cast<int32_t>(beam);
  std::unique_ptr<pmt::Translator> t;
  if (const pmt::Status s = pmt::Translator::load(argv[1], limits, &t); !s.ok()) {
    std::fprintf(stderr, "pmt-probe: %s\n", s.message());
    return 2;
  }
  std::mt19937 rng(1);
  std::uniform_int_distribution<int32_t> id(4, t->config().vocab_size - 1);
  pmt::TranslateOptions options;
  options.beam = static_cast<int32_t>(beam);
  options.max_len = static_cast<int32_t>(gen_len);
  long steps = 0;
  std::vector<int32_t> source(static_cast<size_t>(src_len - 1));  // the runtime appends EOS
  for (long i = 0; i < count; ++i) {
    for (int32_t& x : source) x = id(rng);
    const std::span<const int32_t> one[] = {source};
    if (const pmt::Status s = t->translate_ids(one, options); !s.ok()) {
      std::fprintf(stderr, "pmt-probe: %s\n", s.message());
      return 1;
    }
    const pmt::Translation& r = t->results()[0];
    steps += static_cast<long>(r.tokens.size()) + (r.complete ? 1 : 0);
  }
  std::printf("decoder steps: %ld\n", steps);
  return 0;
}
