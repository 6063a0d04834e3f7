// Checkpoints: exact round trip of parameters, Adam state and run metadata; a leftover temporary
// file does not hide the last good checkpoint; shape checks; averaging.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "train/checkpoint.h"
#include "train_test_util.h"

using namespace pmt;
using namespace pmt::train;

namespace {

const BatchLimits kLimits{4, 8, 8, 0, 0};

bool same_floats(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

}  // namespace

TEST_CASE("a checkpoint round-trips parameters, moments, step and metadata bit for bit") {
  test::ScratchDir dir("ckpt_roundtrip");
  const ModelConfig config = test::tiny_config(0.1f, 0.1f);
  Transformer model(config, kLimits);
  model.init(5);
  Adam adam(model.num_params());
  for (size_t i = 0; i < model.num_params(); ++i) {
    adam.m()[i] = 0.001f * static_cast<float>(i % 97) - 0.05f;
    adam.v()[i] = 1e-6f * static_cast<float>(i % 13);
  }
  adam.set_steps(17);
  const std::string path = dir.file("last.safetensors");
  REQUIRE(write_checkpoint(path, model, &adam, {{"train.step", "17"}}) == "");

  StFile file;
  ModelConfig read_config;
  REQUIRE(read_checkpoint(path, &file, &read_config) == "");
  CHECK(read_config == config);
  CHECK(file.metadata.at("train.step") == "17");
  CHECK(file.find("embed.weight") != nullptr);
  CHECK(file.find("optim.m.embed.weight") != nullptr);
  CHECK(file.find("optim.v.decoder.layers.1.linear2.bias") != nullptr);
  CHECK(file.tensors.size() == 3 * model.tensors().size());

  Transformer copy(config, kLimits);
  copy.init(6);  // different values, overwritten by the load
  Adam copy_adam(copy.num_params());
  REQUIRE(load_params(file, &copy) == "");
  REQUIRE(load_optimizer(file, copy, &copy_adam) == "");
  CHECK(same_floats(copy.params(), model.params(), model.num_params()));
  CHECK(same_floats(copy_adam.m(), adam.m(), adam.size()));
  CHECK(same_floats(copy_adam.v(), adam.v(), adam.size()));
  CHECK(copy_adam.steps() == 17);
}

TEST_CASE("a leftover temporary file from an interrupted write does not break the last good checkpoint") {
  test::ScratchDir dir("ckpt_atomic");
  const ModelConfig config = test::tiny_config(0.f, 0.f);
  Transformer model(config, kLimits);
  model.init(1);
  const std::string path = dir.file("last.safetensors");
  REQUIRE(write_checkpoint(path, model, nullptr, {}) == "");
  // A crash during the next write leaves a partial path.tmp behind (write_safetensors writes
  // there, then renames).
  test::write_file(path + ".tmp", "\x40\x00\x00\x00\x00\x00\x00\x00{\"embed.weight\":{\"dtype\":\"F32\",");
  StFile file;
  ModelConfig c;
  REQUIRE(read_checkpoint(path, &file, &c) == "");
  Transformer back(config, kLimits);
  REQUIRE(load_params(file, &back) == "");
  CHECK(same_floats(back.params(), model.params(), model.num_params()));
  // The next save replaces both.
  model.init(2);
  REQUIRE(write_checkpoint(path, model, nullptr, {}) == "");
  REQUIRE(read_checkpoint(path, &file, &c) == "");
  REQUIRE(load_params(file, &back) == "");
  CHECK(same_floats(back.params(), model.params(), model.num_params()));
}

TEST_CASE("loading checks shapes, completeness and optimizer presence") {
  test::ScratchDir dir("ckpt_checks");
  ModelConfig config = test::tiny_config(0.f, 0.f);
  Transformer model(config, kLimits);
  model.init(1);
  REQUIRE(write_checkpoint(dir.file("a.safetensors"), model, nullptr, {}) == "");
  StFile file;
  ModelConfig c;
  REQUIRE(read_checkpoint(dir.file("a.safetensors"), &file, &c) == "");

  Adam adam(model.num_params());
  CHECK(load_optimizer(file, model, &adam).find("no optimizer state") != std::string::npos);

  ModelConfig wider = config;
  wider.d_ff = 2 * config.d_ff;
  Transformer other(wider, kLimits);
  const std::string err = load_params(file, &other);
  CHECK(err.find("encoder.layers.0.linear1.weight") != std::string::npos);
  CHECK(err.find("[64, 32]") != std::string::npos);

  StFile missing = file;
  missing.tensors.pop_back();
  CHECK(load_params(missing, &model).find("missing tensor") != std::string::npos);
  StFile extra = file;
  extra.tensors.push_back({"decoder.layers.9.linear1.weight", {1}, {0.f}});
  CHECK(load_params(extra, &model).find("unexpected tensor") != std::string::npos);
}

TEST_CASE("averaging checkpoints gives the element-wise mean and drops optimizer state") {
  test::ScratchDir dir("ckpt_average");
  const ModelConfig config = test::tiny_config(0.f, 0.f);
  Transformer model(config, kLimits);
  Adam adam(model.num_params());
  std::vector<std::string> paths;
  const float values[3] = {1.f, 2.f, 6.f};  // mean 3
  for (int k = 0; k < 3; ++k) {
    std::fill(model.params(), model.params() + model.num_params(), values[k]);
    model.params()[0] = static_cast<float>(k);  // 0, 1, 2 -> mean 1
    paths.push_back(dir.file("step-" + std::to_string(k) + ".safetensors"));
    REQUIRE(write_checkpoint(paths.back(), model, &adam, {}) == "");
  }
  REQUIRE(average_checkpoints(paths, dir.file("avg.safetensors")) == "");
  StFile file;
  ModelConfig c;
  REQUIRE(read_checkpoint(dir.file("avg.safetensors"), &file, &c) == "");
  CHECK(c == config);
  CHECK(file.find("optim.m.embed.weight") == nullptr);
  CHECK(file.metadata.at("averaged_from").find("step-2.safetensors") != std::string::npos);
  Transformer avg(config, kLimits);
  REQUIRE(load_params(file, &avg) == "");
  CHECK(avg.params()[0] == 1.f);
  CHECK(avg.params()[1] == 3.f);
  CHECK(avg.params()[avg.num_params() - 1] == 3.f);

  // A checkpoint of another model cannot join the average.
  ModelConfig pre_ln = config;
  pre_ln.pre_ln = true;
  Transformer other(pre_ln, kLimits);
  REQUIRE(write_checkpoint(dir.file("other.safetensors"), other, nullptr, {}) == "");
  CHECK(average_checkpoints({paths[0], dir.file("other.safetensors")}, dir.file("bad.safetensors")).find("differs") !=
        std::string::npos);
}
