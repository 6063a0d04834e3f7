#include "corpus/verse_alignment.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace pmt::corpus {
namespace {

struct Bead {
  int source, target;  // verses taken from each side
  double prior;
};

constexpr Bead kBeads[] = {{1, 1, 0.89},   {1, 0, 0.0099}, {0, 1, 0.0099},
                           {2, 1, 0.0445}, {1, 2, 0.0445}, {2, 2, 0.011}};

double bead_cost(const Bead& bead, VerseFeatures s, VerseFeatures t, const AlignmentModel& m) {
  if (bead.source + bead.target == 1 && s.length + t.length == 0) return -std::log(m.empty_skip);
  const double c = m.target_per_source_char;
  const double mean = std::max(1.0, (s.length + t.length / c) / 2.0);
  const double d = (t.length - c * s.length) / std::sqrt(m.variance_per_char * mean);
  // 2 (1 - Phi(|d|)) = erfc(|d| / sqrt 2), floored so that the logarithm stays finite.
  const double p_length = std::max(std::erfc(std::fabs(d) / std::sqrt(2.0)), 1e-300);
  return -std::log(bead.prior) - std::log(p_length) -
         std::abs(s.question_marks - t.question_marks) * std::log(m.question_mark_mismatch);
}

VerseFeatures sum(std::span<const VerseFeatures> verses) {
  VerseFeatures total;
  for (const VerseFeatures& v : verses) {
    total.length += v.length;
    total.question_marks += v.question_marks;
  }
  return total;
}

}  // namespace

std::vector<bool> aligned_in_place(std::span<const VerseFeatures> source,
                                   std::span<const VerseFeatures> target, const AlignmentModel& model) {
  const size_t n = source.size(), m = target.size();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // cost[at(i, j)]: the best alignment of the first i source and j target verses; `last` holds
  // the index of its last bead.
  std::vector<double> cost((n + 1) * (m + 1), kInf);
  std::vector<signed char> last((n + 1) * (m + 1), -1);
  const auto at = [m](size_t i, size_t j) { return i * (m + 1) + j; };
  cost[at(0, 0)] = 0.0;
  for (size_t i = 0; i <= n; ++i) {
    for (size_t j = 0; j <= m; ++j) {
      for (size_t b = 0; b < std::size(kBeads); ++b) {
        const Bead& bead = kBeads[b];
        const size_t ds = bead.source, dt = bead.target;
        if (i < ds || j < dt || cost[at(i - ds, j - dt)] == kInf) continue;
        const double c = cost[at(i - ds, j - dt)] +
                         bead_cost(bead, sum(source.subspan(i - ds, ds)), sum(target.subspan(j - dt, dt)), model);
        if (c < cost[at(i, j)]) {
          cost[at(i, j)] = c;
          last[at(i, j)] = static_cast<signed char>(b);
        }
      }
    }
  }
  std::vector<bool> in_place(n, false);
  for (size_t i = n, j = m; i > 0 || j > 0;) {
    const Bead& bead = kBeads[last[at(i, j)]];
    i -= bead.source;
    j -= bead.target;
    if (bead.source == 1 && bead.target == 1 && i == j) in_place[i] = true;
  }
  return in_place;
}

}  // namespace pmt::corpus
