#include "export/calibrate.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "export/model_tensors.h"
#include "export/quantize.h"
#include "train/batching.h"

namespace pmt::exporter {

void Calibrator::observe(const train::Transformer& model) {
  for (const auto& io : model.linear_io()) {
    Stats& s = stats_[weight_name_of_linear(io.name)];
    s.input.add(io.input, io.input_numel);
    s.output.add(io.output, io.output_numel);
    const size_t out = io.output_numel / io.rows;
    if (s.channels.empty())
      s.channels.assign(out, {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()});
    for (size_t r = 0; r < io.rows; ++r)
      for (size_t c = 0; c < out; ++c) {
        const float v = io.output[r * out + c];
        s.channels[c].lo = std::min(s.channels[c].lo, v);
        s.channels[c].hi = std::max(s.channels[c].hi, v);
      }
  }
}

std::string Calibrator::ranges(double percentile, std::map<std::string, LinearRange>* out) const {
  if (stats_.empty()) return "calibration saw no activations";
  std::map<std::string, LinearRange> result;
  for (const auto& [name, s] : stats_) {
    for (const auto* h : {&s.input, &s.output})
      if (h->non_finite() > 0)
        return "calibration: " + std::to_string(h->non_finite()) + " non-finite activations around " + name +
               " (is the checkpoint diverged?)";
    auto range = [&](const quant::ActHistogram& h, bool keep_max) {
      return ActRange{std::min(h.percentile(100.0 - percentile), 0.f),
                      std::max(keep_max ? h.max() : h.percentile(percentile), 0.f)};
    };
    result[name] = {range(s.input, false), range(s.output, name == "embed.weight"), s.channels};
  }
  *out = std::move(result);
  return {};
}

std::map<std::string, LinearQuant> linear_quant(const std::map<std::string, LinearRange>& ranges, double margin) {
  std::map<std::string, LinearQuant> out;
  for (const auto& [name, r] : ranges) {
    LinearQuant& q = out[name];
    q.input = quant::act_quant_from_range(r.input.lo, r.input.hi);
    q.output = quant::act_quant_from_range(r.output.lo, r.output.hi);
    if (name == "embed.weight" || margin == 0.0) continue;
    for (const ActRange& c : r.channels) {
      const float extra = static_cast<float>((margin - 1.0) * 0.5 * (double{c.hi} - c.lo));
      q.output_ranges.insert(q.output_ranges.end(), {c.lo == 0.f ? 0.f : c.lo - extra, c.hi == 0.f ? 0.f : c.hi + extra});
    }
  }
  return out;
}

std::vector<uint32_t> calibration_pairs(const train::ParallelData& data, size_t sentences) {
  const size_t n = std::min(sentences, data.size());
  std::vector<uint32_t> pairs(n);
  for (size_t i = 0; i < n; ++i) pairs[i] = static_cast<uint32_t>(i * data.size() / n);
  return pairs;
}

train::BatchLimits calibration_limits(const train::ParallelData& data, const std::vector<uint32_t>& pairs) {
  train::BatchLimits limits{1, 1, 1, 0, 0};
  for (uint32_t p : pairs) {
    limits.max_src_len = std::max<int32_t>(limits.max_src_len, static_cast<int32_t>(data.pairs[p].src_len));
    limits.max_tgt_len = std::max<int32_t>(limits.max_tgt_len, static_cast<int32_t>(data.pairs[p].tgt_len));
  }
  return limits;
}

std::string calibrate(train::Transformer* model, const train::ParallelData& data, size_t sentences,
                      double percentile, std::map<std::string, LinearRange>* out,
                      const std::function<void(size_t, size_t)>& progress) {
  if (data.size() == 0 || sentences == 0) return "calibration needs at least one sentence pair";
  Calibrator calibrator;
  train::Batch batch;
  const std::vector<uint32_t> pairs = calibration_pairs(data, sentences);
  size_t done = 0;
  for (uint32_t p : pairs) {
    train::make_batch(data, {&p, 1}, &batch);
    try {
      model->forward(batch, /*train=*/false, train::DropoutRng{});
    } catch (const std::invalid_argument& e) {
      return "calibration pair " + std::to_string(p) + ": " + e.what();
    }
    calibrator.observe(*model);
    if (progress) progress(++done, pairs.size());
  }
  return calibrator.ranges(percentile, out);
}

}  // namespace pmt::exporter
