// The whole tiny model against the independent PyTorch reference (tests/reference/
// transformer_reference.py): loss, logits and every parameter gradient.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/safetensors.h"
#include "train/model.h"

namespace pmt::train {
namespace {

// max |a - b| / max(max |b|, tiny).
double relative_error(const float* a, const std::vector<float>& b) {
  double diff = 0.0, scale = 1e-30;
  for (size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  return diff / scale;
}

std::vector<int32_t> ids_of(const StTensor& t) {
  std::vector<int32_t> ids(t.data.size());
  std::transform(t.data.begin(), t.data.end(), ids.begin(), [](float v) { return static_cast<int32_t>(v); });
  return ids;
}

void check_fixture(const std::string& file) {
  StFile st;
  const std::string err = read_safetensors(std::string(PMT_TEST_DATA_DIR) + "/" + file, &st);
  REQUIRE_MESSAGE(err.empty(), err);
  ModelConfig config;
  const std::string cerr = config_from_metadata(st.metadata, &config);
  REQUIRE_MESSAGE(cerr.empty(), cerr);

  const StTensor* src = st.find("batch.src");
  const StTensor* tgt_in = st.find("batch.tgt_in");
  const StTensor* tgt_out = st.find("batch.tgt_out");
  REQUIRE((src && tgt_in && tgt_out && src->shape.size() == 2 && tgt_in->shape.size() == 2));
  Batch batch;
  batch.batch = static_cast<int32_t>(src->shape[0]);
  batch.src_len = static_cast<int32_t>(src->shape[1]);
  batch.tgt_len = static_cast<int32_t>(tgt_in->shape[1]);
  batch.src = ids_of(*src);
  batch.tgt_in = ids_of(*tgt_in);
  batch.tgt_out = ids_of(*tgt_out);

  Transformer model(config, BatchLimits{batch.batch, batch.src_len, batch.tgt_len});
  // The model's tensors are the fixture's parameters, in the same (checkpoint) order.
  size_t i = 0;
  for (const TensorInfo& t : model.tensors()) {
    REQUIRE(i < st.tensors.size());
    CHECK(st.tensors[i].name == t.name);
    const StTensor* w = st.find(t.name);
    REQUIRE_MESSAGE(w, t.name);
    REQUIRE(w->shape == t.shape);
    std::copy(w->data.begin(), w->data.end(), model.params() + t.offset);
    ++i;
  }
  CHECK(st.tensors[i].name == "batch.src");

  const float loss = model.forward(batch, false, DropoutRng{});
  const float expected = st.find("expected.loss")->data[0];
  CHECK(std::abs(loss - expected) / expected <= 1e-5);
  CHECK(relative_error(model.logits(), st.find("expected.logits")->data) <= 1e-5);

  model.zero_grad();
  model.backward();
  for (const TensorInfo& t : model.tensors()) {
    const StTensor* g = st.find("grad." + t.name);
    REQUIRE_MESSAGE(g, t.name);
    const double e = relative_error(model.grads() + t.offset, g->data);
    CHECK_MESSAGE(e <= 1e-3, t.name, " gradient relative error ", e);
  }
}

TEST_CASE("tiny post-LN model matches the PyTorch reference") { check_fixture("tiny_reference.safetensors"); }

TEST_CASE("tiny pre-LN model matches the PyTorch reference") { check_fixture("tiny_reference_preln.safetensors"); }

}  // namespace
}  // namespace pmt::train
