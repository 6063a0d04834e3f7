// pmt-convert average: the mean of several checkpoints' parameters, as the paper evaluates
// ("averaging the last 5 checkpoints").
#include <cstdio>
#include <string>
#include <vector>

#include "corpus/cli_options.h"
#include "train/checkpoint.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Writes the element-wise mean of the checkpoints' parameters (same model config and tensors\n"
    "required; optimizer state is dropped) to FILE, with the config and \"averaged_from\" in\n"
    "its metadata.";

}  // namespace

int cmd_average(int argc, char** argv) {
  std::string out;
  std::vector<std::string> inputs;
  const Option options[] = {{"--out", &out, nullptr, "the averaged checkpoint to write (required)", "FILE"}};
  const Positional positionals[] = {{"CHECKPOINT", &inputs, "checkpoints to average (one or more)", true}};
  if (auto r = parse_options("average", kUsage, argc, argv, options, positionals); r != ParseResult::kOk)
    return exit_code(r);
  if (out.empty() || inputs.empty()) {
    std::fprintf(stderr, "pmt-convert average: --out and at least one checkpoint are required (pmt-convert average --help)\n");
    return 2;
  }
  if (std::string err = train::average_checkpoints(inputs, out); !err.empty()) {
    std::fprintf(stderr, "pmt-convert average: %s\n", err.c_str());
    return 2;
  }
  std::printf("averaged %zu checkpoints into %s\n", inputs.size(), out.c_str());
  return 0;
}

}  // namespace pmt::cli
