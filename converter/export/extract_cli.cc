// pmt-convert extract: a .pmt model file -> a safetensors checkpoint of its weights.
#include <cstdio>
#include <string>
#include <vector>

#include "common/safetensors.h"
#include "corpus/cli_options.h"
#include "export/extract.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Writes the weights of a model file as a checkpoint (the trainer's tensor names, the file's\n"
    "config), so that a model can be trained further with `pmt-convert train --init OUT --preset\n"
    "NAME --dropout 0.1 --label-smoothing 0.1` when its checkpoint is lost (model files hold no\n"
    "training-only fields: the checkpoint has them at 0). fp32 files give their weights back bit\n"
    "for bit; int8 files dequantized (each weight within half its row's scale step of the\n"
    "exported value). Exit status 2 when the model file is not valid or OUT cannot be written.";

}  // namespace

int cmd_extract(int argc, char** argv) {
  std::vector<std::string> files;
  std::string out_path;
  const Option options[] = {{"--out", &out_path, nullptr, "checkpoint to write, e.g. runs/next/init.safetensors", "FILE"}};
  const Positional positionals[] = {{"MODEL", &files, "the .pmt model file"}};
  if (ParseResult r = parse_options("extract", kUsage, argc, argv, options, positionals); r != ParseResult::kOk)
    return exit_code(r);
  if (files.empty() || out_path.empty()) {
    std::fprintf(stderr, "pmt-convert extract: a model file and --out are required (pmt-convert extract --help)\n");
    return 2;
  }
  std::string error;
  const auto file = ModelFile::open(files[0], &error);
  if (!file) {
    std::fprintf(stderr, "pmt-convert extract: %s\n", error.c_str());
    return 2;
  }
  StFile checkpoint = exporter::extract_checkpoint(*file);
  checkpoint.metadata["extracted_from"] = files[0];
  if (error = write_safetensors(out_path, checkpoint); !error.empty()) {
    std::fprintf(stderr, "pmt-convert extract: %s\n", error.c_str());
    return 2;
  }
  std::printf("%s: %zu tensors of %s (%s)\n", out_path.c_str(), checkpoint.tensors.size(), files[0].c_str(),
              file->quantized() ? "int8 weights dequantized" : "fp32, exact");
  return 0;
}

}  // namespace pmt::cli
