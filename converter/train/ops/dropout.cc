#include "train/ops/dropout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "kernels/simd.h"  // runtime/src: PMT_MULTIVERSION, PMT_INLINE

namespace pmt::train {

namespace {
constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
constexpr long kChunk = 512;  // elements whose mask lanes are computed at once, on the stack

// Calls f(i, factor(first + i)) for i < n. Per chunk, first the hashes (one per aligned group of
// four indices) into a buffer, then the elements: two simple loops that vectorize, where hashing
// inside the element loop kept it scalar (2 ns per element).
template <typename F>
PMT_INLINE void for_each_factor(long n, const DropoutMask& mask, uint64_t first, F f) {
  static_assert(std::endian::native == std::endian::little, "lane k of a hash must be its k-th uint16");
  uint64_t hashes[kChunk / 4 + 1];
  uint16_t lanes[kChunk + 4];
  const long offset = static_cast<long>(first & 3);  // the same for every chunk: kChunk % 4 == 0
  // Locals, not mask's members: a store through the output pointer could alias those.
  const uint32_t threshold = mask.threshold;
  const float scale = mask.scale;
  for (long done = 0; done < n; done += kChunk) {
    const long count = std::min(n - done, kChunk);
    const uint64_t group = (first + static_cast<uint64_t>(done)) >> 2;
    const long groups = (offset + count + 3) / 4;
    for (long g = 0; g < groups; ++g) hashes[g] = hash64(mask.key + (group + static_cast<uint64_t>(g)) * kGolden);
    std::memcpy(lanes, hashes, sizeof(uint64_t) * groups);
    for (long i = 0; i < count; ++i) f(done + i, lanes[offset + i] < threshold ? 0.f : scale);
  }
}
}  // namespace

DropoutMask::DropoutMask(float p, uint64_t seed, uint64_t step, uint64_t site) {
  key = hash64(hash64(hash64(seed + kGolden) + step + kGolden) + site + kGolden);
  const long t = std::lround(static_cast<double>(p) * 65536.0);
  threshold = static_cast<uint32_t>(t < 0 ? 0 : t > 65535 ? 65535 : t);
  scale = static_cast<float>(65536.0 / (65536.0 - threshold));
}

PMT_MULTIVERSION
void dropout_forward(float* y, const float* x, long n, const DropoutMask& mask, uint64_t first) {
  if (!mask.active()) {
    if (y != x) std::copy(x, x + n, y);
    return;
  }
  for_each_factor(n, mask, first, [&](long i, float f) { y[i] = x[i] * f; });
}

PMT_MULTIVERSION
void dropout_add_forward(float* out, const float* x, const float* y, long n, const DropoutMask& mask,
                         uint64_t first) {
  if (!mask.active()) {
    for (long i = 0; i < n; ++i) out[i] = x[i] + y[i];
    return;
  }
  for_each_factor(n, mask, first, [&](long i, float f) { out[i] = x[i] + y[i] * f; });
}

PMT_MULTIVERSION
void dropout_backward(float* dx, const float* dy, long n, const DropoutMask& mask, uint64_t first) {
  if (!mask.active()) {
    for (long i = 0; i < n; ++i) dx[i] += dy[i];
    return;
  }
  for_each_factor(n, mask, first, [&](long i, float f) { dx[i] += dy[i] * f; });
}

}  // namespace pmt::train
