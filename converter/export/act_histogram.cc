#include "export/act_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace pmt::quant {

ActHistogram::ActHistogram() : negative_(kBins), positive_(kBins) {}

void ActHistogram::add(const float* values, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float x = values[i];
    if (!std::isfinite(x)) {
      ++non_finite_;
      continue;
    }
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const size_t bin = (bits & 0x7FFFFFFFu) >> kShift;
    ++((bits >> 31) ? negative_ : positive_)[bin];
    if (count_ == 0) min_ = max_ = x;
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
    ++count_;
  }
}

float ActHistogram::percentile(double p) const {
  if (count_ == 0) return 0.f;
  const double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(count_));
  const uint64_t k = std::max<uint64_t>(1, static_cast<uint64_t>(rank));
  // The magnitude at the far (from zero) edge of a bin; bin 0 (zeros and denormals) reads as 0.
  auto outer_edge = [](size_t bin) {
    return bin == 0 ? 0.f : std::bit_cast<float>(static_cast<uint32_t>((bin + 1) << kShift));
  };
  // Ascending order: negative bins from the largest magnitude down, then positive bins up.
  uint64_t seen = 0;
  for (size_t b = kBins; b-- > 0;)
    if ((seen += negative_[b]) >= k) return std::max(-outer_edge(b), min_);
  for (size_t b = 0; b < kBins; ++b)
    if ((seen += positive_[b]) >= k) return std::min(outer_edge(b), max_);
  return max_;
}

}  // namespace pmt::quant
