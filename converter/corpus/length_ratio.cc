#include "corpus/length_ratio.h"

#include <algorithm>

namespace pmt::corpus {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2.0;
}

bool ratio_within(double ratio, double median, double max_factor) {
  return ratio <= median * max_factor && ratio >= median / max_factor;
}

}  // namespace pmt::corpus
