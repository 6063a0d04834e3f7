// pmt-convert score: corpus BLEU and chrF of a hypothesis file against a reference file.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "corpus/cli_options.h"
#include "metrics/bleu.h"
#include "metrics/chrf.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Scores one hypothesis line per reference line (UTF-8, detokenized) with sacreBLEU's\n"
    "defaults: BLEU (13a tokenizer, exp smoothing) and chrF2 (character 6-grams).";

// One entry per line without its line ending ("\n" or "\r\n"), as Python reads text files.
bool read_lines(const std::string& path, std::vector<std::string>* lines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines->push_back(std::move(line));
  }
  return !in.bad();
}

}  // namespace

int cmd_score(int argc, char** argv) {
  std::string hyp_path, ref_path;
  const Option options[] = {{"--hyp", &hyp_path, nullptr, "the translations, one a line (required)", "FILE"},
                            {"--ref", &ref_path, nullptr, "the references, one a line (required)", "FILE"}};
  if (auto r = parse_options("score", kUsage, argc, argv, options); r != ParseResult::kOk) {
    return exit_code(r);
  }
  if (hyp_path.empty() || ref_path.empty()) {
    std::fprintf(stderr, "pmt-convert score: --hyp and --ref are required (pmt-convert score --help)\n");
    return 2;
  }
  std::vector<std::string> hyps, refs;
  for (const auto& [path, lines] : {std::pair{&hyp_path, &hyps}, std::pair{&ref_path, &refs}}) {
    if (!read_lines(*path, lines)) {
      std::fprintf(stderr, "pmt-convert score: cannot read '%s'\n", path->c_str());
      return 2;
    }
  }
  if (hyps.size() != refs.size()) {
    std::fprintf(stderr, "pmt-convert score: %zu hypothesis lines but %zu reference lines\n",
                 hyps.size(), refs.size());
    return 2;
  }
  const metrics::BleuScore bleu = metrics::corpus_bleu(hyps, refs);
  std::printf("BLEU = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %lld ref_len = %lld)\n",
              bleu.score, bleu.precisions[0], bleu.precisions[1], bleu.precisions[2],
              bleu.precisions[3], bleu.brevity_penalty, bleu.sys_ref_ratio,
              static_cast<long long>(bleu.sys_len), static_cast<long long>(bleu.ref_len));
  std::printf("chrF2 = %.2f\n", metrics::corpus_chrf(hyps, refs));
  return 0;
}

}  // namespace pmt::cli
