// pmt-convert: the host-side tool. `pmt-convert <command> --help` documents each command.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "pmt_cli.h"

namespace pmt::cli {
// Defined next to the code each one drives (converter/<area>/*_cli.cc).
int cmd_prepare(int, char**);
int cmd_corpus(int, char**);
int cmd_vocab(int, char**);
int cmd_extend_vocab(int, char**);
int cmd_score(int, char**);
int cmd_train(int, char**);
int cmd_average(int, char**);
int cmd_export(int, char**);
int cmd_inspect(int, char**);
int cmd_extract(int, char**);
}  // namespace pmt::cli

namespace {

// One line per command; each helper file defines its pmt::cli::cmd_* function.
const std::vector<pmt::cli::Command> kCommands = {
    {"prepare", pmt::cli::cmd_prepare, "build data/<pair>/{train,valid,test}.{en,es} from the SWORD Bible modules"},
    {"corpus", pmt::cli::cmd_corpus, "build the general-domain corpus (Debian's translated software text + Bible) in data/en-es"},
    {"vocab", pmt::cli::cmd_vocab, "train the shared SentencePiece model on a prepared train split"},
    {"extend-vocab", pmt::cli::cmd_extend_vocab, "add whole-word pieces for a text's fragmented words to a trained model's vocabulary"},
    {"score", pmt::cli::cmd_score, "BLEU and chrF of a hypothesis file against a reference file"},
    {"train", pmt::cli::cmd_train, "train the Transformer on a prepared corpus (or --benchmark training steps)"},
    {"average", pmt::cli::cmd_average, "average the parameters of several checkpoints"},
    {"export", pmt::cli::cmd_export, "checkpoint + SentencePiece model -> .pmt model file (fp32 or int8)"},
    {"inspect", pmt::cli::cmd_inspect, "verify a .pmt model file and print its config and tensors"},
    {"extract", pmt::cli::cmd_extract, "the weights of a .pmt model file as a checkpoint (to train it further)"},
};

// The command is found by CLI11; everything after its name goes to the command's own parser
// (converter/corpus/cli_options.h), so `pmt-convert COMMAND --help` is the command's help.
int run(int argc, char** argv) {
  CLI::App app("The host-side tool of PocketMT: corpus, vocabulary, training, export, inspection.\n"
               "`pmt-convert COMMAND --help` documents each command.",
               "pmt-convert");
  pmt::cli::conventions(app, "pmt-convert");
  app.require_subcommand(1);
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    sub->prefix_command();     // the rest of the line is the command's
    sub->set_help_flag();      // its --help is the command's own
    sub->allow_extras();
  }
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(kCommands.begin(), kCommands.end(), [&](const auto& c) { return !std::strcmp(argv[1], c.name); })) {
    std::fprintf(stderr, "pmt-convert: unknown command '%s'\nRun 'pmt-convert --help' for the commands.\n", argv[1]);
    return 2;
  }
  if (const int rc = pmt::cli::parse(app, "pmt-convert", argc, argv, true); rc >= 0) return rc;
  for (const auto& c : kCommands) {
    const CLI::App* sub = app.get_subcommand(c.name);
    if (!sub->parsed()) continue;
    std::vector<std::string> rest = sub->remaining();
    std::vector<char*> args;
    for (std::string& r : rest) args.push_back(r.data());
    args.push_back(nullptr);
    return c.run(static_cast<int>(rest.size()), args.data());
  }
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
