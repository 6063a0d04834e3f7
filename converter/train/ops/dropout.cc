#include "train/ops/dropout.h"

#include <algorithm>
#include <cmath>

namespace pmt::train {

namespace {
constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// Calls f(i, factor) for i < n, hashing once per group of four elements.
template <typename F>
void for_each_factor(long n, const DropoutMask& mask, uint64_t first, F f) {
  long i = 0;
  while (i < n) {
    const uint64_t index = first + static_cast<uint64_t>(i);
    const uint64_t h = hash64(mask.key + (index >> 2) * kGolden);
    for (uint64_t lane = index & 3; lane < 4 && i < n; ++lane, ++i) {
      const uint64_t bits = (h >> (lane * 16)) & 0xffff;
      f(i, bits < mask.threshold ? 0.f : mask.scale);
    }
  }
}
}  // namespace

DropoutMask::DropoutMask(float p, uint64_t seed, uint64_t step, uint64_t site) {
  key = hash64(hash64(hash64(seed + kGolden) + step + kGolden) + site + kGolden);
  const long t = std::lround(static_cast<double>(p) * 65536.0);
  threshold = static_cast<uint32_t>(t < 0 ? 0 : t > 65535 ? 65535 : t);
  scale = static_cast<float>(65536.0 / (65536.0 - threshold));
}

void dropout_forward(float* y, const float* x, long n, const DropoutMask& mask, uint64_t first) {
  if (!mask.active()) {
    if (y != x) std::copy(x, x + n, y);
    return;
  }
  for_each_factor(n, mask, first, [&](long i, float f) { y[i] = x[i] * f; });
}

void dropout_add_forward(float* out, const float* x, const float* y, long n, const DropoutMask& mask,
                         uint64_t first) {
  if (!mask.active()) {
    for (long i = 0; i < n; ++i) out[i] = x[i] + y[i];
    return;
  }
  for_each_factor(n, mask, first, [&](long i, float f) { out[i] = x[i] + y[i] * f; });
}

void dropout_backward(float* dx, const float* dy, long n, const DropoutMask& mask, uint64_t first) {
  if (!mask.active()) {
    for (long i = 0; i < n; ++i) dx[i] += dy[i];
    return;
  }
  for_each_factor(n, mask, first, [&](long i, float f) { dx[i] += dy[i] * f; });
}

}  // namespace pmt::train
