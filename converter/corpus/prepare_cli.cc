// pmt-convert prepare: builds data/<pair>/{train,valid,test}.{en,es} from the SWORD modules.
#include <chrono>
#include <cstdio>
#include <vector>

#include "corpus/cli_options.h"
#include "corpus/prepare.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Builds verse-aligned English->Spanish pairs from Debian's SWORD modules engWEB2015eb,\n"
    "engKJV2006eb and spaRV1909eb (read with mod2imp) and writes DIR/{train,valid,test}.{en,es},\n"
    "one sentence per line. Whole chapters are held out: chapter % 32 == 7 test, == 23 valid.";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void print_report(const corpus::PreparedCorpus& c, bool with_kjv) {
  std::printf("%d verses in %d chapters; RV subscriptions cut: %d; RV chapter openings re-cased: %d\n",
              c.verses, c.chapters, c.subscriptions_cut, c.openings_recased);
  std::printf("RV/KJV alignment: %d verses not aligned one-to-one with their own number\n",
              c.misaligned_verses);
  std::printf("dropped by rule                 WEB-RV   KJV-RV\n");
  std::printf("  empty side                  %8lld %8lld\n", static_cast<long long>(c.web_drops.empty),
              static_cast<long long>(c.kjv_drops.empty));
  std::printf("  versification (alignment)   %8lld %8lld\n",
              static_cast<long long>(c.web_drops.versification),
              static_cast<long long>(c.kjv_drops.versification));
  std::printf("  length ratio                %8lld %8lld   (es/en median %.4f / %.4f, kept within x2)\n",
              static_cast<long long>(c.web_drops.length_ratio),
              static_cast<long long>(c.kjv_drops.length_ratio), c.web_median_ratio, c.kjv_median_ratio);
  for (const corpus::Split s : {corpus::Split::kValid, corpus::Split::kTest}) {
    std::printf("  %-5s English seen in train %8lld        -\n", corpus::split_name(s),
                static_cast<long long>(c.web_drops.leaked[static_cast<int>(s)]));
  }
  std::printf("KJV-RV train pairs: %lld (%s)\n", static_cast<long long>(c.kjv_train_pairs),
              with_kjv ? "added to train" : "not used; --with-kjv adds them");
  std::printf("split   pairs   words en   words es\n");
  for (int s = 0; s < corpus::kNumSplits; ++s) {
    const auto& pairs = c.splits[s];
    std::printf("%-5s %7zu %10lld %10lld\n", corpus::split_name(static_cast<corpus::Split>(s)),
                pairs.size(), static_cast<long long>(corpus::count_side_words(pairs, true)),
                static_cast<long long>(corpus::count_side_words(pairs, false)));
  }
}

}  // namespace

int cmd_prepare(int argc, char** argv) {
  std::string out_dir;
  bool with_kjv = false;
  const Option options[] = {
      {"--out", &out_dir, nullptr, "output folder (default data/web-rv, or data/web+kjv-rv with --with-kjv)", "DIR"},
      {"--with-kjv", nullptr, &with_kjv, "also add the KJV-RV pairs of the train chapters to train"}};
  if (auto r = parse_options("prepare", kUsage, argc, argv, options); r != ParseResult::kOk) {
    return exit_code(r);
  }
  if (out_dir.empty()) out_dir = with_kjv ? "data/web+kjv-rv" : "data/web-rv";

  const auto start = std::chrono::steady_clock::now();
  corpus::BibleModules bible;
  std::string error;
  if (!corpus::read_bible_modules(&bible, &error)) {
    std::fprintf(stderr, "pmt-convert prepare: %s\n", error.c_str());
    return 2;
  }
  const corpus::BibleSources& sources = bible.sources;
  std::printf("read the SWORD modules with mod2imp in %.1f s\n", seconds_since(start));

  corpus::PreparedCorpus prepared;
  if (!corpus::prepare_corpus(sources, {.add_kjv_to_train = with_kjv}, &prepared, &error)) {
    std::fprintf(stderr, "pmt-convert prepare: %s\n", error.c_str());
    return 2;
  }
  if (!corpus::write_corpus(prepared, out_dir, &error)) {
    std::fprintf(stderr, "pmt-convert prepare: %s\n", error.c_str());
    return 1;
  }
  print_report(prepared, with_kjv);
  std::printf("wrote %s/{train,valid,test}.{en,es} in %.1f s\n", out_dir.c_str(), seconds_since(start));
  return 0;
}

}  // namespace pmt::cli
