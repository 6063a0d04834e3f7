// pmt-convert inspect: verify a .pmt file and print what it holds.
#include <cstdio>
#include <string>
#include <vector>

#include "corpus/cli_options.h"
#include "export/inspect.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Verifies a model file (identifier, format version, FlatBuffers Verifier, checksum, every\n"
    "tensor against the config, the embedded tokenizer against vocab_size) and prints the\n"
    "config, every tensor (shape, dtype, bytes, scale range, activation quantization), the\n"
    "vocabulary size and the file size. Exit status 2 when the file is not a valid model.";

}  // namespace

int cmd_inspect(int argc, char** argv) {
  std::vector<std::string> files;
  bool json = false;
  const Option options[] = {{"--json", nullptr, &json, "one JSON object instead of text"}};
  const Positional positionals[] = {{"FILE", &files, "the .pmt model file"}};
  if (ParseResult r = parse_options("inspect", kUsage, argc, argv, options, positionals); r != ParseResult::kOk)
    return exit_code(r);
  if (files.empty()) {
    std::fprintf(stderr, "pmt-convert inspect: a model file is required (pmt-convert inspect --help)\n");
    return 2;
  }
  const std::string& path = files[0];
  std::string error;
  auto file = ModelFile::open(path, &error);
  if (!file) {
    std::fprintf(stderr, "pmt-convert inspect: %s\n", error.c_str());
    return 2;
  }
  const int pieces = exporter::tokenizer_pieces(*file, &error);
  if (pieces != file->config().vocab_size) {
    std::fprintf(stderr, "pmt-convert inspect: %s: %s\n", path.c_str(),
                 pieces < 0 ? error.c_str()
                            : ("the tokenizer has " + std::to_string(pieces) + " pieces, vocab_size is " +
                               std::to_string(file->config().vocab_size)).c_str());
    return 2;
  }
  std::fputs(exporter::describe_model(*file, path, json).c_str(), stdout);
  return 0;
}

}  // namespace pmt::cli
