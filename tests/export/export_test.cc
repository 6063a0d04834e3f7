// Export of a checkpoint written by the PyTorch reference (tests/fixtures), read back through the
// runtime's loader.
#include "export/export.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "export/extract.h"
#include "export/inspect.h"
#include "export/shortlist.h"
#include "pocketmt/pmt_generated.h"

namespace {

// The fixture's model tensors and config (it also holds a batch, logits and gradients).
pmt::StFile reference_checkpoint() {
  pmt::StFile all, model;
  const std::string error = pmt::read_safetensors(PMT_TEST_DATA_DIR "/tiny_reference.safetensors", &all);
  REQUIRE_MESSAGE(error.empty(), error);
  model.metadata = all.metadata;
  for (auto& t : all.tensors)
    if (!t.name.starts_with("batch.") && !t.name.starts_with("expected.") && !t.name.starts_with("grad."))
      model.tensors.push_back(std::move(t));
  return model;
}

pmt::train::ParallelData calibration_pairs() {
  pmt::train::ParallelData d;
  for (int i = 0; i < 6; ++i) {
    std::vector<int32_t> src, tgt;
    for (int j = 0; j < 3 + i; ++j) src.push_back(4 + (7 * i + 5 * j) % 60);
    for (int j = 0; j < 2 + i % 3; ++j) tgt.push_back(4 + (11 * i + 3 * j) % 60);
    d.add(src, tgt);
  }
  return d;
}

// A model file in 64-byte aligned memory with the loader's view of it.
struct Loaded {
  std::unique_ptr<uint8_t, decltype(&std::free)> buffer{nullptr, &std::free};
  std::unique_ptr<pmt::ModelFile> file;
};
Loaded load(const std::vector<uint8_t>& bytes) {
  Loaded l;
  l.buffer.reset(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64)));
  std::memcpy(l.buffer.get(), bytes.data(), bytes.size());
  std::string error;
  l.file = pmt::ModelFile::from_buffer(l.buffer.get(), bytes.size(), &error);
  REQUIRE_MESSAGE(l.file, error);
  return l;
}

// Checkpoint values of a model-file tensor: cross-attention q_proj / kv_proj are row ranges of
// the checkpoint's fused in_proj (rows 0..D-1 and D..3D-1).
std::vector<float> checkpoint_values(const pmt::StFile& ckpt, const std::string& name, size_t numel) {
  const size_t D = 32;
  struct Part { const char* suffix; const char* fused; size_t first; };
  for (const Part& p : {Part{".q_proj.weight", ".in_proj_weight", 0}, Part{".q_proj.bias", ".in_proj_bias", 0},
                        Part{".kv_proj.weight", ".in_proj_weight", D * D}, Part{".kv_proj.bias", ".in_proj_bias", D}}) {
    if (name.ends_with(p.suffix)) {
      const auto* t = ckpt.find(name.substr(0, name.size() - std::strlen(p.suffix)) + p.fused);
      REQUIRE(t != nullptr);
      return {t->data.begin() + p.first, t->data.begin() + p.first + numel};
    }
  }
  const auto* t = ckpt.find(name);
  REQUIRE_MESSAGE(t != nullptr, name);
  return t->data;
}

std::string export_error(const pmt::StFile& ckpt) {
  std::vector<uint8_t> bytes;
  return pmt::exporter::export_model(ckpt, "spm", nullptr, {}, {}, &bytes);
}

}  // namespace

TEST_CASE("fp32 export round-trips every weight exactly") {
  const pmt::StFile ckpt = reference_checkpoint();
  std::vector<uint8_t> bytes;
  const std::string error = pmt::exporter::export_model(ckpt, "spm bytes", nullptr, {}, {{"note", "test"}}, &bytes);
  REQUIRE_MESSAGE(error.empty(), error);
  const Loaded l = load(bytes);
  CHECK_FALSE(l.file->quantized());
  CHECK(l.file->tokenizer() == "spm bytes");
  CHECK(l.file->metadata("note") == "test");
  CHECK(l.file->config().d_model == 32);
  CHECK(l.file->config().ln_eps == 1e-5f);
  // 1 embedding + 12 per encoder layer + 20 per decoder layer (cross-attention split in two).
  REQUIRE(l.file->tensors().size() == 1 + 2 * 12 + 2 * 20);
  for (const pmt::TensorView& t : l.file->tensors()) {
    CHECK(t.dtype == pmt::DType::F32);
    const auto n = static_cast<size_t>(t.numel());
    const std::vector<float> expected = checkpoint_values(ckpt, std::string(t.name), n);
    REQUIRE(expected.size() == n);
    CHECK_MESSAGE(std::memcmp(t.data, expected.data(), n * 4) == 0, t.name);
  }
}

TEST_CASE("int8 export: weights within half a scale step, everything else exact") {
  const pmt::StFile ckpt = reference_checkpoint();
  const pmt::train::ParallelData calib = calibration_pairs();
  pmt::exporter::ExportOptions options;
  options.dtype = pmt::DType::I8;
  options.calib_sentences = 4;
  std::vector<uint8_t> bytes;
  const std::string error = pmt::exporter::export_model(ckpt, "spm", &calib, options, {}, &bytes);
  REQUIRE_MESSAGE(error.empty(), error);
  const Loaded l = load(bytes);
  CHECK(l.file->quantized());
  CHECK(l.file->metadata("calibration").starts_with("4 sentence pairs"));
  int int8_tensors = 0;
  for (const pmt::TensorView& t : l.file->tensors()) {
    const auto n = static_cast<size_t>(t.numel());
    const std::vector<float> w = checkpoint_values(ckpt, std::string(t.name), n);
    const bool linear = t.shape.size() == 2;
    if (!linear) {
      CHECK(t.dtype == pmt::DType::F32);
      CHECK(std::memcmp(t.data, w.data(), n * 4) == 0);
      continue;
    }
    ++int8_tensors;
    REQUIRE(t.dtype == pmt::DType::I8);
    REQUIRE(t.input_quant.has_value());
    REQUIRE(t.output_quant.has_value());
    const size_t cols = static_cast<size_t>(t.shape[1]);
    for (size_t i = 0; i < n; ++i) {
      const float scale = t.scales[i / cols];
      const float err = std::fabs(scale * static_cast<float>(t.i8()[i]) - w[i]);
      if (err > scale * 0.5f * (1 + 1e-5f)) FAIL(t.name << " element " << i << " off by " << err << ", scale " << scale);
    }
  }
  CHECK(int8_tensors == 1 + 2 * 4 + 2 * 7);
  // Each row's scale is its max |w| / 127.
  const pmt::TensorView* e = l.file->find("embed.weight");
  const auto* ref = ckpt.find("embed.weight");
  for (int r = 0; r < 64; ++r) {
    float max_abs = 0;
    for (int c = 0; c < 32; ++c) max_abs = std::max(max_abs, std::fabs(ref->data[r * 32 + c]));
    CHECK(e->scales[r] == doctest::Approx(max_abs / 127).epsilon(1e-6));
  }
}

TEST_CASE("extract gives the checkpoint back: fp32 exactly, int8 within half a scale step") {
  const pmt::StFile ckpt = reference_checkpoint();
  for (const pmt::DType dtype : {pmt::DType::F32, pmt::DType::I8}) {
    CAPTURE(static_cast<int>(dtype));
    const pmt::train::ParallelData calib = calibration_pairs();
    pmt::exporter::ExportOptions options;
    options.dtype = dtype;
    options.calib_sentences = 4;
    std::vector<uint8_t> bytes;
    const std::string error = pmt::exporter::export_model(ckpt, "spm", &calib, options, {}, &bytes);
    REQUIRE_MESSAGE(error.empty(), error);
    const Loaded l = load(bytes);
    const pmt::StFile back = pmt::exporter::extract_checkpoint(*l.file);
    pmt::ModelConfig config, expected_config;
    REQUIRE(pmt::config_from_metadata(back.metadata, &config).empty());
    REQUIRE(pmt::config_from_metadata(ckpt.metadata, &expected_config).empty());
    expected_config.dropout = expected_config.label_smoothing = 0;  // training-only, not in the file
    CHECK(config == expected_config);
    // The same tensors as the checkpoint, with the same shapes (in_proj fused again).
    REQUIRE(back.tensors.size() == ckpt.tensors.size());
    for (const pmt::StTensor& t : ckpt.tensors) {
      const pmt::StTensor* b = back.find(t.name);
      REQUIRE_MESSAGE(b != nullptr, t.name);
      REQUIRE(b->shape == t.shape);
      const bool quantized = dtype == pmt::DType::I8 && t.shape.size() == 2;
      if (!quantized) {
        CHECK_MESSAGE(std::memcmp(b->data.data(), t.data.data(), t.data.size() * 4) == 0, t.name);
        continue;
      }
      // Half a step of the row's scale, max |w| / 127, read from the checkpoint itself.
      const size_t cols = static_cast<size_t>(t.shape[1]);
      for (size_t r = 0; r < static_cast<size_t>(t.shape[0]); ++r) {
        float max_abs = 0;
        for (size_t c = 0; c < cols; ++c) max_abs = std::max(max_abs, std::fabs(t.data[r * cols + c]));
        for (size_t c = 0; c < cols; ++c) {
          const float err = std::fabs(b->data[r * cols + c] - t.data[r * cols + c]);
          if (err > max_abs / 127 * 0.5f * (1 + 1e-4f)) FAIL(t.name << " row " << r << " off by " << err);
        }
      }
    }
  }
}

TEST_CASE("export refuses a checkpoint with a missing, misnamed or misshaped tensor, naming it") {
  pmt::StFile ckpt = reference_checkpoint();
  SUBCASE("optimizer state is ignored") {
    ckpt.tensors.push_back({"optim.m.embed.weight", {64, 32}, std::vector<float>(64 * 32)});
    CHECK(export_error(ckpt).empty());
  }
  SUBCASE("missing") {
    std::erase_if(ckpt.tensors, [](const pmt::StTensor& t) { return t.name == "decoder.layers.1.norm2.bias"; });
    CHECK(export_error(ckpt).find("decoder.layers.1.norm2.bias") != std::string::npos);
  }
  SUBCASE("misnamed") {
    for (auto& t : ckpt.tensors)
      if (t.name == "encoder.layers.0.linear2.weight") t.name = "encoder.layers.0.fc2.weight";
    const std::string error = export_error(ckpt);
    CHECK(error.find("encoder.layers.0.fc2.weight") != std::string::npos);
  }
  SUBCASE("misshaped") {
    for (auto& t : ckpt.tensors)
      if (t.name == "decoder.layers.0.multihead_attn.in_proj_weight") t.shape = {32, 96};
    const std::string error = export_error(ckpt);
    CHECK(error.find("decoder.layers.0.multihead_attn.in_proj_weight") != std::string::npos);
    CHECK(error.find("[32, 96]") != std::string::npos);
  }
  SUBCASE("no config") {
    ckpt.metadata.erase("d_model");
    CHECK(export_error(ckpt).find("d_model") != std::string::npos);
  }
  SUBCASE("a non-finite weight") {
    ckpt.tensors[3].data[5] = NAN;
    CHECK(export_error(ckpt).find("non-finite") != std::string::npos);
  }
  SUBCASE("int8 without calibration data") {
    pmt::exporter::ExportOptions options;
    options.dtype = pmt::DType::I8;
    std::vector<uint8_t> bytes;
    CHECK(pmt::exporter::export_model(ckpt, "spm", nullptr, options, {}, &bytes).find("calibration") !=
          std::string::npos);
  }
}

TEST_CASE("inspect describes every tensor in text and JSON") {
  const pmt::train::ParallelData calib = calibration_pairs();
  pmt::exporter::ExportOptions options;
  options.dtype = pmt::DType::I8;
  std::vector<uint8_t> bytes;
  REQUIRE(pmt::exporter::export_model(reference_checkpoint(), "spm", &calib, options, {}, &bytes).empty());
  const Loaded l = load(bytes);
  const std::string text = pmt::exporter::describe_model(*l.file, "tiny.pmt", false);
  CHECK(text.find("tiny.pmt: PocketMT model file, " + std::to_string(bytes.size()) + " bytes") != std::string::npos);
  CHECK(text.find("vocab_size=64 d_model=32 n_heads=4 d_ff=64") != std::string::npos);
  CHECK(text.find("tensors: 65") != std::string::npos);
  CHECK(text.find("decoder.layers.1.multihead_attn.kv_proj.weight") != std::string::npos);
  // The tokenizer here is a placeholder, which inspect reports rather than trusting.
  CHECK(text.find("does not load") != std::string::npos);
  const std::string dumped = pmt::exporter::describe_model(*l.file, "tiny.pmt", true);
  const nlohmann::json json = nlohmann::json::parse(dumped);
  CHECK(dumped.starts_with("{\"file\":\"tiny.pmt\",\"file_bytes\":" + std::to_string(bytes.size())));
  const auto tensor = [&](const std::string& name) {
    for (const nlohmann::json& t : json["tensors"])
      if (t["name"] == name) return t;
    FAIL("no tensor " << name);
    return nlohmann::json();
  };
  const nlohmann::json embed = tensor("embed.weight");
  CHECK(embed["shape"] == nlohmann::json::array({64, 32}));
  CHECK(embed["dtype"] == "i8");
  CHECK(embed["bytes"] == 2048);
  CHECK(embed.contains("scale_min"));
  // Per-channel output ranges: every Linear but the output projection, as their width range.
  CHECK(text.find("channel widths [min, max]") != std::string::npos);
  const pmt::TensorView* q = l.file->find("decoder.layers.1.multihead_attn.q_proj.weight");
  REQUIRE(q->output_ranges != nullptr);
  float widest = 0;
  for (int64_t r = 0; r < q->shape[0]; ++r)
    widest = std::max(widest, pmt::half_to_float(q->output_ranges[2 * r + 1]) - pmt::half_to_float(q->output_ranges[2 * r]));
  const nlohmann::json qj = tensor("decoder.layers.1.multihead_attn.q_proj.weight");
  CHECK(qj["output_channel_width_max"].get<float>() == doctest::Approx(widest).epsilon(1e-6));
  CHECK_FALSE(embed.contains("output_channel_width_max"));
  const auto stored = pmt::fb::GetModel(bytes.data())->tokenizer()->size();
  CHECK(json["tokenizer"] == nlohmann::json({{"bytes", 3}, {"encoding", "zlib"}, {"stored_bytes", stored}, {"pieces", -1}}));
  CHECK(json["config"]["ln_eps"].dump() == "9.99999975e-06");  // the float's shortest form
  CHECK(json["shortlist"].is_null());
  CHECK(text.find("shortlist:") == std::string::npos);

  // With a shortlist (the builder on the calibration pairs): stored, and shown with its sizes.
  pmt::exporter::Shortlist list;
  REQUIRE(pmt::exporter::build_shortlist(calib, 64, pmt::kEosId, {}, &list).empty());
  options.shortlist = &list;
  REQUIRE(pmt::exporter::export_model(reference_checkpoint(), "spm", &calib, options, {}, &bytes).empty());
  const Loaded with = load(bytes);
  REQUIRE(with.file->shortlist() != nullptr);
  CHECK(with.file->shortlist()->targets.size() == list.targets.size());
  const nlohmann::json listed = nlohmann::json::parse(pmt::exporter::describe_model(*with.file, "tiny.pmt", true));
  CHECK(listed["shortlist"] == nlohmann::json({{"frequent", list.frequent.size()}, {"targets", list.targets.size()}}));
  CHECK(pmt::exporter::describe_model(*with.file, "tiny.pmt", false)
            .find("shortlist: " + std::to_string(list.frequent.size()) + " frequent target pieces, " +
                  std::to_string(list.targets.size()) + " per-source-piece targets") != std::string::npos);
}

TEST_CASE("export stores the SentencePiece model deflated; inspect shows both sizes") {
  std::ifstream in(PMT_TEST_DATA_DIR "/tiny_spm64.model", std::ios::binary);
  REQUIRE(in);
  const std::string spm{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<uint8_t> bytes;
  REQUIRE(pmt::exporter::export_model(reference_checkpoint(), spm, nullptr, {}, {}, &bytes).empty());
  const size_t stored = pmt::fb::GetModel(bytes.data())->tokenizer()->size();
  CHECK(stored < spm.size());
  const Loaded l = load(bytes);
  CHECK(l.file->format_version() == 2);
  CHECK(l.file->tokenizer() == spm);
  const std::string text = pmt::exporter::describe_model(*l.file, "tiny.pmt", false);
  CHECK(text.find("format version 2") != std::string::npos);
  CHECK(text.find("tokenizer: SentencePiece, 64 pieces, 1015 bytes, stored zlib in " + std::to_string(stored) +
                  " bytes\n") != std::string::npos);
}
