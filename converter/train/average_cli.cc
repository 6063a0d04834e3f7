// pmt-convert average: the mean of several checkpoints' parameters, as the paper evaluates
// ("averaging the last 5 checkpoints").
#include <cstdio>
#include <string>
#include <vector>

#include "train/checkpoint.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "usage: pmt-convert average --out FILE CHECKPOINT...\n"
    "  Writes the element-wise mean of the checkpoints' parameters (same model config and tensors\n"
    "  required; optimizer state is dropped) to FILE, with the config and \"averaged_from\" in\n"
    "  its metadata.\n";

}  // namespace

int cmd_average(int argc, char** argv) {
  std::string out;
  std::vector<std::string> inputs;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--out") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pmt-convert average: --out needs a value\n%s", kUsage);
        return 2;
      }
      out = argv[++i];
    } else if (arg.starts_with("-")) {
      std::fprintf(stderr, "pmt-convert average: unknown option '%s'\n%s", arg.c_str(), kUsage);
      return 2;
    } else {
      inputs.push_back(arg);
    }
  }
  if (out.empty() || inputs.empty()) {
    std::fprintf(stderr, "pmt-convert average: --out and at least one checkpoint are required\n%s", kUsage);
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
