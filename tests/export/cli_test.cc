// The export, inspect and extract commands reject bad usage and bad files with exit status 2.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "export/model_writer.h"
#include "train/checkpoint.h"
#include "train/model.h"

namespace pmt::cli {
int cmd_export(int argc, char** argv);
int cmd_inspect(int argc, char** argv);
int cmd_extract(int argc, char** argv);
}  // namespace pmt::cli

namespace {

int run(int (*cmd)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return cmd(static_cast<int>(argv.size()), argv.data());
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("pmt_cli_" + std::to_string(getpid()) + "_" + name)).string();
}

std::vector<std::string> plus(std::vector<std::string> args, const std::string& last) {
  args.push_back(last);
  return args;
}

}  // namespace

TEST_CASE("export: bad usage and unreadable inputs exit with 2") {
  using pmt::cli::cmd_export;
  CHECK(run(cmd_export, {"--help"}) == 0);
  CHECK(run(cmd_export, {}) == 2);
  CHECK(run(cmd_export, {"--checkpoint", "a", "--spm", "b"}) == 2);
  CHECK(run(cmd_export, {"--checkpoint", "a", "--spm", "b", "--out", "c", "--dtype", "int4"}) == 2);
  CHECK(run(cmd_export, {"--checkpoint", "a", "--spm", "b", "--out", "c", "--dtype", "int8"}) == 2);  // no calib data
  CHECK(run(cmd_export, {"--checkpoint", "a", "--spm", "b", "--out", "c", "--percentile", "101"}) == 2);
  CHECK(run(cmd_export, {"--checkpoint", "a", "--spm", "b", "--out", "c", "--calib-sentences", "0"}) == 2);
  CHECK(run(cmd_export, {"--checkpoint", "a", "--spm", "b", "--out", "c", "--channel-margin", "0.5"}) == 2);
  CHECK(run(cmd_export, {"--checkpoint", "a", "--spm", "b", "--out", "c", "--channel-margin", "x"}) == 2);
  CHECK(run(cmd_export, {"--checkpoint", "/nonexistent.safetensors", "--spm", "b", "--out", "c", "--dtype", "f32"}) == 2);
  // A real checkpoint with a file that is not a SentencePiece model.
  const std::string not_spm = temp_path("not.model");
  std::FILE* f = std::fopen(not_spm.c_str(), "wb");
  std::fputs("hello", f);
  std::fclose(f);
  const std::string out = temp_path("never.pmt");
  CHECK(run(cmd_export, {"--checkpoint", PMT_TEST_DATA_DIR "/tiny_reference.safetensors", "--spm", not_spm, "--out",
                         out, "--dtype", "f32"}) == 2);
  CHECK_FALSE(std::filesystem::exists(out));
  std::remove(not_spm.c_str());
}

TEST_CASE("inspect: missing, corrupt and inconsistent files exit with 2") {
  using pmt::cli::cmd_inspect;
  CHECK(run(cmd_inspect, {}) == 2);
  CHECK(run(cmd_inspect, {"--help"}) == 0);
  CHECK(run(cmd_inspect, {"/nonexistent.pmt"}) == 2);
  CHECK(run(cmd_inspect, {"/nonexistent.pmt", "--yaml"}) == 2);
  CHECK(run(cmd_inspect, {"--version"}) == 0);
  // Options in any order (issue 16: `inspect --json FILE` was refused), one file at most.
  const std::string shipped = PMT_SOURCE_DIR "/models/small-int8.pmt";
  CHECK(run(cmd_inspect, {"--json", shipped}) == 0);
  CHECK(run(cmd_inspect, {shipped, "--json"}) == 0);
  CHECK(run(cmd_inspect, {shipped, shipped}) == 2);

  // A valid model file whose tokenizer is a placeholder: structure verifies, vocabulary does not.
  pmt::ModelConfig config;
  REQUIRE(pmt::preset_config("tiny", &config));
  pmt::exporter::ModelContents contents;
  contents.config = config;
  contents.tokenizer = "placeholder";
  std::vector<std::vector<float>> values;
  for (const auto& spec : pmt::model_tensor_specs(config)) {
    int64_t n = 1;
    for (int64_t d : spec.shape) n *= d;
    values.emplace_back(static_cast<size_t>(n), 0.5f);
    contents.tensors.push_back({spec, values.back().data()});
  }
  std::vector<uint8_t> bytes;
  REQUIRE(pmt::exporter::build_model_file(contents, &bytes).empty());
  const std::string path = temp_path("placeholder.pmt");
  REQUIRE(pmt::exporter::write_file_atomically(path, bytes).empty());
  CHECK(run(cmd_inspect, {path, "--json"}) == 2);
  // The same file cut short.
  bytes.resize(bytes.size() / 2);
  REQUIRE(pmt::exporter::write_file_atomically(path, bytes).empty());
  CHECK(run(cmd_inspect, {path}) == 2);
  std::remove(path.c_str());
}

// Issue 14, finding 7: export replaced whatever was at --out (as root, even /dev/full). A FIFO
// stands in for the device here: the check is the same (not a regular file) and no device of
// the machine is at stake should it regress.
TEST_CASE("export: refuses to replace an --out that is not a regular file") {
  pmt::ModelConfig config;
  REQUIRE(pmt::preset_config("tiny", &config));
  pmt::train::Transformer model(config, pmt::train::BatchLimits{1, 2, 2, 0, 0});
  model.init(1);
  const std::string checkpoint = temp_path("tiny.safetensors"), fifo = temp_path("fifo.pmt");
  REQUIRE(pmt::train::write_checkpoint(checkpoint, model, nullptr, {}).empty());
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const std::vector<std::string> args = {"--checkpoint", checkpoint, "--spm", PMT_TEST_DATA_DIR "/tiny_spm64.model",
                                         "--dtype", "f32", "--out"};
  CHECK(run(pmt::cli::cmd_export, plus(args, fifo)) == 1);
  CHECK(std::filesystem::is_fifo(fifo));
  // The same export to a regular file succeeds: the refusal is about the target alone.
  const std::string out = temp_path("tiny.pmt");
  CHECK(run(pmt::cli::cmd_export, plus(args, out)) == 0);
  CHECK(std::filesystem::is_regular_file(out));
  // --output, every tool's name for where results go, is the same option as --out.
  std::vector<std::string> output_args = args;
  output_args.back() = "--output";
  const std::string out2 = temp_path("tiny2.pmt");
  CHECK(run(pmt::cli::cmd_export, plus(output_args, out2)) == 0);
  CHECK(std::filesystem::is_regular_file(out2));
  for (const std::string& p : {checkpoint, fifo, out, out2}) std::remove(p.c_str());
}

TEST_CASE("extract: a model file back to a checkpoint that training can start from; bad input exits with 2") {
  using pmt::cli::cmd_extract;
  CHECK(run(cmd_extract, {"--help"}) == 0);
  CHECK(run(cmd_extract, {}) == 2);
  CHECK(run(cmd_extract, {"--out", temp_path("x.safetensors")}) == 2);
  CHECK(run(cmd_extract, {"/nonexistent.pmt", "--out", temp_path("x.safetensors")}) == 2);
  CHECK(run(cmd_extract, {PMT_TEST_DATA_DIR "/tiny_reference.safetensors", "--out", temp_path("x.safetensors")}) == 2);
  CHECK_FALSE(std::filesystem::exists(temp_path("x.safetensors")));

  pmt::ModelConfig config;
  REQUIRE(pmt::preset_config("tiny", &config));
  pmt::train::Transformer model(config, pmt::train::BatchLimits{1, 2, 2, 0, 0});
  model.init(3);
  const std::string checkpoint = temp_path("e.safetensors"), pmt_file = temp_path("e.pmt"),
                    back = temp_path("back.safetensors");
  REQUIRE(pmt::train::write_checkpoint(checkpoint, model, nullptr, {}).empty());
  REQUIRE(run(pmt::cli::cmd_export, {"--checkpoint", checkpoint, "--spm", PMT_TEST_DATA_DIR "/tiny_spm64.model",
                                     "--dtype", "f32", "--out", pmt_file}) == 0);
  REQUIRE(run(cmd_extract, {pmt_file, "--out", back}) == 0);
  // What --init reads: a checkpoint whose parameters load into the same model, equal to the originals.
  pmt::StFile file;
  pmt::ModelConfig back_config;
  REQUIRE(pmt::train::read_checkpoint(back, &file, &back_config).empty());
  CHECK(back_config.d_model == config.d_model);
  pmt::train::Transformer loaded(config, pmt::train::BatchLimits{1, 2, 2, 0, 0});
  REQUIRE(pmt::train::load_params(file, &loaded).empty());
  CHECK(std::equal(model.params(), model.params() + model.num_params(), loaded.params()));
  CHECK(file.metadata.at("extracted_from") == pmt_file);
  // The target must be a regular file, as for export.
  CHECK(run(cmd_extract, {pmt_file, "--out", std::filesystem::temp_directory_path().string()}) == 2);
  for (const std::string& p : {checkpoint, pmt_file, back}) std::remove(p.c_str());
}
