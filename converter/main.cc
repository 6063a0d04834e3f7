// pmt-convert: the host-side tool. `pmt-convert <command> --help` documents each command.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "commands.h"

namespace pmt::cli {
// Defined next to the code each one drives (converter/<area>/*_cli.cc).
int cmd_prepare(int, char**);
int cmd_corpus(int, char**);
int cmd_vocab(int, char**);
int cmd_score(int, char**);
int cmd_train(int, char**);
int cmd_average(int, char**);
int cmd_export(int, char**);
int cmd_inspect(int, char**);
}  // namespace pmt::cli

namespace {

// One line per command; each helper file defines its pmt::cli::cmd_* function.
const std::vector<pmt::cli::Command> kCommands = {
    {"prepare", pmt::cli::cmd_prepare, "build data/<pair>/{train,valid,test}.{en,es} from the SWORD Bible modules"},
    {"corpus", pmt::cli::cmd_corpus, "build the general-domain corpus (Debian's translated software text + Bible) in data/en-es"},
    {"vocab", pmt::cli::cmd_vocab, "train the shared SentencePiece model on a prepared train split"},
    {"score", pmt::cli::cmd_score, "BLEU and chrF of a hypothesis file against a reference file"},
    {"train", pmt::cli::cmd_train, "train the Transformer on a prepared corpus (or --benchmark training steps)"},
    {"average", pmt::cli::cmd_average, "average the parameters of several checkpoints"},
    {"export", pmt::cli::cmd_export, "checkpoint + SentencePiece model -> .pmt model file (fp32 or int8)"},
    {"inspect", pmt::cli::cmd_inspect, "verify a .pmt model file and print its config and tensors"},
};

void usage(FILE* out) {
  std::fprintf(out, "usage: pmt-convert <command> [options]   (pmt-convert <command> --help)\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
}

int run(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (const auto& c : kCommands) {
    if (!std::strcmp(argv[1], c.name)) return c.run(argc - 2, argv + 2);
  }
  std::fprintf(stderr, "pmt-convert: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  // Output lost to a full disk or a closed pipe fails the run, whatever the command made of it;
  // fclose flushes what is still buffered.
  const bool write_failed = std::ferror(stdout) != 0;
  if (std::fclose(stdout) != 0 || write_failed) {
    std::fprintf(stderr, "pmt-convert: cannot write the output: %s\n", std::strerror(errno));
    return rc != 0 ? rc : 1;
  }
  return rc;
}
