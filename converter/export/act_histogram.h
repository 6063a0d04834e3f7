// Streaming statistics of one activation tensor for calibration: exact count, min and max, and
// a histogram precise to 1/64 of an octave from which robust percentiles are read. Memory is
// fixed (256 KiB) however many values are added, so hundreds of sentences can be observed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pmt::quant {

class ActHistogram {
 public:
  ActHistogram();

  // Adds n values. Non-finite values are counted apart (see non_finite()) and otherwise ignored.
  void add(const float* values, size_t n);

  uint64_t count() const { return count_; }  // finite values added
  uint64_t non_finite() const { return non_finite_; }
  float min() const { return min_; }  // exact; 0 when nothing was added
  float max() const { return max_; }

  // The p-th percentile (p in [0, 100]) of the values added: the k-th smallest value with
  // k = ceil(p / 100 * count) (k >= 1), rounded outward (away from zero) to its bin edge, so
  // its relative error is below 1/64 and the range it bounds never shrinks, then clamped to
  // [min, max] so that p = 0 and p = 100 are exact. Magnitudes below the smallest normal float
  // read as 0. 0 when nothing was added.
  float percentile(double p) const;

 private:
  // Bin of |x|: the top 15 bits of its IEEE pattern (8 exponent bits, 6 mantissa bits, the
  // sign dropped), i.e. 64 logarithmic bins per octave. Zeros fall into bin 0.
  static constexpr int kShift = 17;
  static constexpr size_t kBins = size_t{1} << (31 - kShift);

  std::vector<uint64_t> negative_, positive_;  // kBins each, by magnitude bin
  uint64_t count_ = 0, non_finite_ = 0;
  float min_ = 0.f, max_ = 0.f;
};

}  // namespace pmt::quant
