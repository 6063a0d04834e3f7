// Calibration on a constructed network: every Linear weight and every LayerNorm gain is zero, so
// each Linear's output is its bias and each LayerNorm's output its bias, whatever the tokens.
// The activation ranges are then known by hand from the biases alone.
#include "export/calibrate.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using pmt::exporter::ActRange;
using pmt::exporter::LinearRange;

struct Constructed {
  pmt::ModelConfig config;
  pmt::train::ParallelData data;
  std::unique_ptr<pmt::train::Transformer> model;

  Constructed() {
    REQUIRE(pmt::preset_config("tiny", &config));
    const std::vector<int32_t> src = {10, 11, 12}, tgt = {20, 21, 22, 23};
    data.add(src, tgt);
    data.add(std::vector<int32_t>{40, 41, 42, 43, 44, 45}, std::vector<int32_t>{50, 51});
    const auto pairs = pmt::exporter::calibration_pairs(data, 10);
    model = std::make_unique<pmt::train::Transformer>(config, pmt::exporter::calibration_limits(data, pairs));
    model->init(1);
    int k = 0;
    for (const auto& t : model->tensors()) {
      float* p = model->params() + t.offset;
      const bool bias = t.name.ends_with("bias");
      const bool norm = t.name.find("norm") != std::string::npos;
      if (t.name == "embed.weight") {
        // E[v] = ((v - 32) / 32, 0, ..., 0): logits = h[0] * (v - 32) / 32.
        std::fill(p, p + t.numel, 0.f);
        for (int v = 0; v < config.vocab_size; ++v) p[v * config.d_model] = (v - 32) / 32.f;
      } else if (!bias) {
        std::fill(p, p + t.numel, 0.f);  // Linear weights and LayerNorm gains
      } else {
        // Biases: a ramp per tensor. Norm biases are positive (tests widening to 0), the
        // others cross zero.
        const float lo = norm ? 0.25f + 0.1f * k : -0.5f - 0.1f * k, hi = norm ? 2.f + 0.1f * k : 1.f + 0.2f * k;
        for (size_t j = 0; j < t.numel; ++j) p[j] = lo + (hi - lo) * static_cast<float>(j) / (t.numel - 1);
        ++k;
      }
    }
  }

  // [min, max] of elements [begin, end) of a parameter tensor.
  ActRange span(const std::string& name, size_t begin = 0, size_t end = SIZE_MAX) const {
    const auto* t = model->find(name);
    REQUIRE(t != nullptr);
    const float* p = model->params() + t->offset;
    end = std::min(end, t->numel);
    const auto [lo, hi] = std::minmax_element(p + begin, p + end);
    return {*lo, *hi};
  }
};

ActRange with_zero(ActRange r) { return {std::min(r.lo, 0.f), std::max(r.hi, 0.f)}; }
ActRange relu(ActRange r) { return {std::max(r.lo, 0.f), std::max(r.hi, 0.f)}; }

void check_range(const ActRange& got, ActRange expected, const std::string& what) {
  expected = with_zero(expected);
  CHECK_MESSAGE(got.lo == doctest::Approx(expected.lo).epsilon(1e-5), what);
  CHECK_MESSAGE(got.hi == doctest::Approx(expected.hi).epsilon(1e-5), what);
}

}  // namespace

TEST_CASE("calibration ranges of a constructed network are the hand-derived ones") {
  Constructed c;
  std::map<std::string, LinearRange> ranges;
  const std::string error = pmt::exporter::calibrate(c.model.get(), c.data, 10, 100.0, &ranges);
  REQUIRE_MESSAGE(error.empty(), error);
  // Every Linear: 4 per encoder layer, 7 per decoder layer (self in/out, cross q/kv/out, FFN),
  // and the output projection.
  CHECK(ranges.size() == 2 * 4 + 2 * 7 + 1);
  const size_t D = 32;

  for (int l = 0; l < 2; ++l) {
    const std::string e = "encoder.layers." + std::to_string(l);
    const LinearRange& in_proj = ranges.at(e + ".self_attn.in_proj_weight");
    // Layer 0 reads embeddings + positions: not derived here; layer 1 reads layer 0's output.
    if (l == 1) check_range(in_proj.input, c.span("encoder.layers.0.norm2.bias"), e + " in_proj input");
    check_range(in_proj.output, c.span(e + ".self_attn.in_proj_bias"), e + " in_proj output");
    // Attention averages identical V rows: its context is the V part of the bias.
    const LinearRange& out_proj = ranges.at(e + ".self_attn.out_proj.weight");
    check_range(out_proj.input, c.span(e + ".self_attn.in_proj_bias", 2 * D), e + " out_proj input");
    check_range(out_proj.output, c.span(e + ".self_attn.out_proj.bias"), e + " out_proj output");
    check_range(ranges.at(e + ".linear1.weight").input, c.span(e + ".norm1.bias"), e + " linear1 input");
    // linear1's output is observed after its ReLU (the trainer applies it in place; the runtime
    // fuses it), so its range is one-signed like linear2's input.
    check_range(ranges.at(e + ".linear1.weight").output, relu(c.span(e + ".linear1.bias")), e + " linear1 output");
    check_range(ranges.at(e + ".linear2.weight").input, relu(c.span(e + ".linear1.bias")), e + " linear2 input");
    check_range(ranges.at(e + ".linear2.weight").output, c.span(e + ".linear2.bias"), e + " linear2 output");
  }
  for (int l = 0; l < 2; ++l) {
    const std::string d = "decoder.layers." + std::to_string(l);
    if (l == 1)
      check_range(ranges.at(d + ".self_attn.in_proj_weight").input, c.span("decoder.layers.0.norm3.bias"),
                  d + " self in_proj input");
    check_range(ranges.at(d + ".self_attn.out_proj.weight").input, c.span(d + ".self_attn.in_proj_bias", 2 * D),
                d + " self out_proj input");
    const LinearRange& q = ranges.at(d + ".multihead_attn.q_proj.weight");
    check_range(q.input, c.span(d + ".norm1.bias"), d + " q input");
    check_range(q.output, c.span(d + ".multihead_attn.in_proj_bias", 0, D), d + " q output");
    const LinearRange& kv = ranges.at(d + ".multihead_attn.kv_proj.weight");
    check_range(kv.input, c.span("encoder.layers.1.norm2.bias"), d + " kv input (encoder output)");
    check_range(kv.output, c.span(d + ".multihead_attn.in_proj_bias", D), d + " kv output");
    const LinearRange& out = ranges.at(d + ".multihead_attn.out_proj.weight");
    check_range(out.input, c.span(d + ".multihead_attn.in_proj_bias", 2 * D), d + " cross out_proj input");
    check_range(out.output, c.span(d + ".multihead_attn.out_proj.bias"), d + " cross out_proj output");
    check_range(ranges.at(d + ".linear1.weight").input, c.span(d + ".norm2.bias"), d + " linear1 input");
    check_range(ranges.at(d + ".linear1.weight").output, relu(c.span(d + ".linear1.bias")), d + " linear1 output");
    check_range(ranges.at(d + ".linear2.weight").input, relu(c.span(d + ".linear1.bias")), d + " linear2 input");
    check_range(ranges.at(d + ".linear2.weight").output, c.span(d + ".linear2.bias"), d + " linear2 output");
  }
  // Output projection: input = last decoder norm's bias h; logits[v] = h[0] * (v - 32) / 32.
  const ActRange h = c.span("decoder.layers.1.norm3.bias");
  const LinearRange& embed = ranges.at("embed.weight");
  check_range(embed.input, h, "output projection input");
  check_range(embed.output, {-h.lo, h.lo * 31 / 32}, "logits");

  // Per output channel the outputs here are constant, the channel's bias: raw min = max = bias.
  const std::string b = "decoder.layers.1.linear2.bias";
  const LinearRange& linear2 = ranges.at("decoder.layers.1.linear2.weight");
  REQUIRE(linear2.channels.size() == D);
  for (size_t k = 0; k < D; ++k) {
    CHECK(linear2.channels[k].lo == doctest::Approx(c.span(b, k, k + 1).lo).epsilon(1e-5));
    CHECK(linear2.channels[k].hi == doctest::Approx(c.span(b, k, k + 1).hi).epsilon(1e-5));
  }
  // They go into the file for every Linear whose output the runtime dequantizes.
  const auto quant = pmt::exporter::linear_quant(ranges);
  const std::vector<float>& stored = quant.at("decoder.layers.1.linear2.weight").output_ranges;
  REQUIRE(stored.size() == 2 * D);
  CHECK(stored[2 * 5] == linear2.channels[5].lo);
  CHECK(stored[2 * 5 + 1] == linear2.channels[5].hi);
  CHECK(quant.at("encoder.layers.0.self_attn.in_proj_weight").output_ranges.size() == 2 * 3 * D);
  CHECK_FALSE(quant.at("encoder.layers.0.linear1.weight").output_ranges.empty());
  CHECK(quant.at("embed.weight").output_ranges.empty());
}

TEST_CASE("a percentile below 100 clips the range but keeps the top logit") {
  Constructed c;
  // A single logit row per target token, 64 values each: the 90th percentile clips the top 10%
  // of every other activation, but the top of the logits must stay the max.
  std::map<std::string, LinearRange> ranges;
  REQUIRE(pmt::exporter::calibrate(c.model.get(), c.data, 10, 90.0, &ranges).empty());
  const ActRange h = c.span("decoder.layers.1.norm3.bias");
  CHECK(ranges.at("embed.weight").output.hi == doctest::Approx(h.lo * 31 / 32).epsilon(1e-5));
  CHECK(ranges.at("embed.weight").output.lo > -h.lo * 0.85f);
  const ActRange b = c.span("encoder.layers.0.linear1.bias");
  CHECK(ranges.at("encoder.layers.0.linear1.weight").output.hi < b.hi * 0.95f);
}

TEST_CASE("calibration without sentence pairs is an error, not a crash") {
  Constructed c;
  std::map<std::string, LinearRange> ranges;
  pmt::train::ParallelData empty;
  CHECK(pmt::exporter::calibrate(c.model.get(), empty, 10, 99.99, &ranges).find("at least one") != std::string::npos);
}
