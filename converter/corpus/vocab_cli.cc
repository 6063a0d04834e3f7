// pmt-convert vocab: trains the shared SentencePiece model on a prepared corpus's train split.
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <thread>

#include "corpus/cli_options.h"
#include "corpus/vocab.h"
#include "pmt_progress.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Trains one SentencePiece unigram model shared by English and Spanish on DIR/train.en and\n"
    "DIR/train.es (never valid or test) and writes DIR/spm.model and DIR/spm.vocab.\n"
    "Ids: pad 0, unk 1, bos 2, eos 3. Deterministic: same input, same bytes.";

}  // namespace

int cmd_vocab(int argc, char** argv) {
  std::string data_dir = "data/web-rv", size_text = "8000";
  bool quiet = false;
  const Option options[] = {{"--data", &data_dir, nullptr, "prepared corpus folder (default data/web-rv)", "DIR"},
                            {"--vocab-size", &size_text, nullptr, "number of pieces, specials included (default 8000)", "N"},
                            {"--quiet", nullptr, &quiet, "no progress on stderr"}};
  if (auto r = parse_options("vocab", kUsage, argc, argv, options); r != ParseResult::kOk) {
    return exit_code(r);
  }
  int64_t vocab_size = 0;
  if (!parse_int_option("vocab", "--vocab-size", size_text, 8, 1 << 20, &vocab_size)) return 2;

  const std::filesystem::path dir = data_dir;
  const std::vector<std::filesystem::path> inputs = {dir / "train.en", dir / "train.es"};
  for (const auto& path : inputs) {
    if (!std::filesystem::is_regular_file(path)) {
      std::fprintf(stderr, "pmt-convert vocab: %s not found (run `pmt-convert prepare` first)\n",
                   path.c_str());
      return 2;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  // SentencePiece's trainer reports nothing while it runs: the elapsed time shows it is alive.
  bool trained = false;
  {
    std::string label = "pmt-convert vocab: training SentencePiece, ";
    label.append(std::to_string(vocab_size)).append(" pieces");
    cli::Progress progress(label, 0, "", quiet);
    std::atomic<bool> stop{false};
    std::thread ticker([&] {
      while (!stop) {
        progress.update(0);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    });
    trained = corpus::train_vocab(inputs, dir / "spm", {.vocab_size = static_cast<int>(vocab_size)}, &error);
    stop = true;
    ticker.join();
  }
  if (!trained) {
    std::fprintf(stderr, "pmt-convert vocab: %s\n", error.c_str());
    return 2;
  }
  std::printf("wrote %s and %s (%" PRId64 " pieces) in %.1f s\n", (dir / "spm.model").c_str(),
              (dir / "spm.vocab").c_str(), vocab_size,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}

}  // namespace pmt::cli
