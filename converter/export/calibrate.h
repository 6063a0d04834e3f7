// Calibration of the int8 activation quantization: the fp32 trainer model runs teacher-forced
// over real sentence pairs, and every Linear's input and output values are collected into
// histograms, from which a robust range and then (scale, zero point) are derived.
//
// Range: per side, the p-th percentile of the values (default p = 99.999: the top is the
// 99.999th percentile, the bottom the 0.001th), widened to contain 0. Transformer activations have rare
// outliers (a few tokens, a few channels) that are several times the bulk; the raw max would
// spend most of the 256 levels on values that almost never occur, while clipping 1 value in
// 100,000 costs far less than the coarser step would cost everywhere else. Per-side percentiles
// rather than a symmetric |x| range because many activations are one-signed or skewed (linear1's
// output, observed after its ReLU as the runtime fuses it, and linear2's input use all levels on
// [0, max]). One exception: the top of the logits (output of
// the output projection) keeps the raw max, because the winning token's logit is by nature the
// extreme value of its row and clipping it would make the argmax ambiguous.
//
// Per output channel, the raw min and max are kept too. A runtime that dequantizes a Linear's
// output gives each channel its own step (range / 254) instead of the tensor's shared one,
// which is set by the few channels with the largest values; there is no need to clip then,
// since no channel spends levels on another's outliers.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "export/act_histogram.h"
#include "export/model_writer.h"
#include "train/model.h"
#include "train/parallel_data.h"

namespace pmt::exporter {

struct ActRange {
  float lo = 0.f, hi = 0.f;  // real values; lo <= 0 <= hi
};
struct LinearRange {
  ActRange input, output;
  std::vector<ActRange> channels;  // per output channel: raw min and max (not widened)
};

class Calibrator {
 public:
  // Adds every Linear's input and output of `model`'s last forward.
  void observe(const train::Transformer& model);

  // Ranges by model-file weight name (see the header comment for the rule). Returns an error
  // message if nothing was observed or an activation was not finite, otherwise empty.
  std::string ranges(double percentile, std::map<std::string, LinearRange>* out) const;

 private:
  struct Stats {
    quant::ActHistogram input, output;
    std::vector<ActRange> channels;
  };
  std::map<std::string, Stats> stats_;
};

// Activation quantization from calibrated ranges (quant::act_quant_from_range per side), and
// the per-channel output ranges of every Linear but the output projection, whose best logits
// the runtime recomputes exactly instead (none at all for margin 0). Each channel's range is
// widened `margin` times (margin >= 1; a bound at 0, such as ReLU's, stays): a channel has no
// other channels' levels to overflow into, so a value beyond what calibration saw would clip,
// and clipping costs far more than a coarser step (on the small model, ranges narrowed to 0.8x
// leave the int8 output equal to fp32's on 356 instead of 616 of 941 test sentences; widened
// to 1.3x, on 608).
std::map<std::string, LinearQuant> linear_quant(const std::map<std::string, LinearRange>& ranges,
                                                double margin = 1.0);

// Runs `model` (eval mode: no dropout) on `sentences` pairs of `data` spread evenly over it (all
// of them if fewer), one pair per forward with no padding, teacher-forced on the reference
// target, and returns the ranges. `model` must have been built with limits admitting every pair
// (calibration_limits). Returns an error message or empty.
// `progress`, when set, is called after each pair with (pairs done, pairs in all).
std::string calibrate(train::Transformer* model, const train::ParallelData& data, size_t sentences,
                      double percentile, std::map<std::string, LinearRange>* out,
                      const std::function<void(size_t, size_t)>& progress = {});

// The pairs calibrate() uses, and batch limits that admit each of them alone.
std::vector<uint32_t> calibration_pairs(const train::ParallelData& data, size_t sentences);
train::BatchLimits calibration_limits(const train::ParallelData& data, const std::vector<uint32_t>& pairs);

}  // namespace pmt::exporter
