// The fixtures written by tests/reference/transformer_reference.py (an independent Python
// safetensors writer) read back through the C++ reader with the documented layout.
#include <doctest/doctest.h>

#include <string>

#include "common/safetensors.h"

namespace {

void check_fixture(const std::string& name, bool pre_ln) {
  pmt::StFile file;
  const std::string path = std::string(PMT_TEST_DATA_DIR) + "/" + name;
  REQUIRE(pmt::read_safetensors(path, &file) == "");

  pmt::ModelConfig expected;
  REQUIRE(pmt::preset_config("tiny", &expected));
  expected.dropout = 0.0f;
  expected.pre_ln = pre_ln;
  pmt::ModelConfig config;
  REQUIRE(pmt::config_from_metadata(file.metadata, &config) == "");
  CHECK(config == expected);

  const pmt::StTensor* src = file.find("batch.src");
  const pmt::StTensor* tgt_in = file.find("batch.tgt_in");
  const pmt::StTensor* tgt_out = file.find("batch.tgt_out");
  const pmt::StTensor* loss = file.find("expected.loss");
  const pmt::StTensor* logits = file.find("expected.logits");
  REQUIRE((src && tgt_in && tgt_out && loss && logits));
  CHECK(src->shape == std::vector<int64_t>{3, 8});
  CHECK(tgt_in->shape == std::vector<int64_t>{3, 9});
  CHECK(logits->shape == std::vector<int64_t>{3, 9, 64});
  CHECK(loss->data.size() == 1);
  // Row 1 of the target is the longest: BOS first, EOS last, tgt_out = tgt_in shifted left.
  CHECK(tgt_in->data[9] == pmt::kBosId);
  CHECK(tgt_out->data[17] == pmt::kEosId);
  for (int t = 0; t < 8; ++t) CHECK(tgt_out->data[9 + t] == tgt_in->data[9 + t + 1]);

  // Every parameter has a same-shaped gradient; the final norms exist only for pre-LN.
  size_t params = 0;
  for (const pmt::StTensor& t : file.tensors) {
    if (t.name.rfind("batch.", 0) == 0 || t.name.rfind("expected.", 0) == 0 || t.name.rfind("grad.", 0) == 0)
      continue;
    ++params;
    std::string grad_name = "grad.";
    grad_name += t.name;
    const pmt::StTensor* g = file.find(grad_name);
    REQUIRE_MESSAGE(g, t.name);
    CHECK(g->shape == t.shape);
  }
  // embed + 2 encoder layers x 12 tensors + 2 decoder layers x 18, + 4 final-norm tensors.
  CHECK(params == (pre_ln ? 65u : 61u));
  CHECK((file.find("encoder.norm.weight") != nullptr) == pre_ln);
  CHECK((file.find("decoder.norm.bias") != nullptr) == pre_ln);
  REQUIRE(file.find("embed.weight"));
  CHECK(file.find("embed.weight")->shape == std::vector<int64_t>{64, 32});
  REQUIRE(file.find("decoder.layers.1.multihead_attn.in_proj_weight"));
  CHECK(file.find("decoder.layers.1.multihead_attn.in_proj_weight")->shape == std::vector<int64_t>{96, 32});
}

}  // namespace

TEST_CASE("reference fixtures: post-LN") { check_fixture("tiny_reference.safetensors", false); }
TEST_CASE("reference fixtures: pre-LN") { check_fixture("tiny_reference_preln.safetensors", true); }
