// Inverted dropout with masks from a counter-based hash: whether element `index` of dropout site
// `site` is kept depends only on (seed, step, site, index), never on thread count or call order,
// so the backward pass regenerates the forward mask instead of storing it.
#pragma once

#include <cstdint>

namespace pmt::train {

// SplitMix64's output function: a bijective 64-bit mixer.
inline uint64_t hash64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One dropout site's mask. Each 64-bit hash yields four 16-bit lanes, one per element, so the
// drop probability is p rounded to a multiple of 1/65536 and `scale` is 1 / (exact keep rate).
struct DropoutMask {
  uint64_t key = 0;
  uint32_t threshold = 0;  // element dropped when its 16-bit lane < threshold
  float scale = 1.f;

  DropoutMask() = default;  // p = 0: keeps everything
  DropoutMask(float p, uint64_t seed, uint64_t step, uint64_t site);
  bool active() const { return threshold != 0; }
  // 0 when element `index` is dropped, else scale.
  float factor(uint64_t index) const {
    const uint64_t lane = (hash64(key + (index >> 2) * 0x9e3779b97f4a7c15ULL) >> ((index & 3) * 16)) & 0xffff;
    return lane < threshold ? 0.f : scale;
  }
};

// All three are plain copies / adds when p = 0 (threshold 0), so callers need no separate eval path.
// y[i] = x[i] * factor(first + i) for i < n; y may alias x.
void dropout_forward(float* y, const float* x, long n, const DropoutMask& mask, uint64_t first = 0);
// out[i] = x[i] + y[i] * factor(first + i): the residual connection around a dropped-out sublayer.
// Its gradient is dout for x and dropout_backward(dout) for y.
void dropout_add_forward(float* out, const float* x, const float* y, long n, const DropoutMask& mask,
                         uint64_t first = 0);
// dx[i] += dy[i] * factor(first + i).
void dropout_backward(float* dx, const float* dy, long n, const DropoutMask& mask, uint64_t first = 0);

}  // namespace pmt::train
