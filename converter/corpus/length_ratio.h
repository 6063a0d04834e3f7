// The length-ratio filter: a verse pair whose Spanish/English length ratio is far from the
// corpus median is more likely a misalignment or a paraphrase than a translation.
#pragma once

#include <vector>

namespace pmt::corpus {

// The median (mean of the two middle values for an even count, as Python's statistics.median);
// 0 for no values.
double median(std::vector<double> values);

// True when ratio lies within [median / max_factor, median * max_factor].
bool ratio_within(double ratio, double median, double max_factor);

}  // namespace pmt::corpus
