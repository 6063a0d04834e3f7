#include "kernels/attention.h"

#include <algorithm>
#include <cmath>

#include "kernels/simd.h"
#include "kernels/softmax_inl.h"

namespace pmt::kernels {
namespace {

// Keys visible to query i: all of them, or under the causal mask those up to its position.
size_t visible_keys(bool causal, size_t q_offset, size_t i, size_t kv_len) {
  return causal ? std::min(kv_len, q_offset + i + 1) : kv_len;
}

// The weights times the rows v[j * ld_v + c .. + n) for one block of n <= kLanes columns,
// summed over the keys. Four accumulators over interleaved keys, so that four multiply-adds are
// in flight rather than one chain as long as the keys.
// (A plain function rather than a lambda: GCC 12 at -O0 with UBSan gives an always-inlined
// lambda's closure in a target clone a null address.)
PMT_INLINE simd::Vec value_row(const float* v, size_t j, size_t ld_v, size_t n) {
  return n == simd::kLanes ? simd::load(v + j * ld_v) : simd::load_partial(v + j * ld_v, n, 0);
}

PMT_INLINE simd::Vec weighted_block(const float* p, const float* v, size_t ld_v, size_t n_keys,
                                    size_t n) {
  simd::Vec acc[4] = {};
  size_t j = 0;
  for (; j + 4 <= n_keys; j += 4)
    for (size_t u = 0; u < 4; ++u) acc[u] += p[j + u] * value_row(v, j + u, ld_v, n);
  for (; j < n_keys; ++j) acc[0] += p[j] * value_row(v, j, ld_v, n);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// out[c] = sum_j p[j] * v[j * ld_v + c] for c < d, one register of columns at a time.
PMT_INLINE void weighted_sum(const float* p, const float* v, size_t ld_v, size_t n_keys, size_t d,
                             float* out) {
  size_t c = 0;
  for (; c + simd::kLanes <= d; c += simd::kLanes)
    simd::store(out + c, weighted_block(p, v + c, ld_v, n_keys, simd::kLanes));
  if (c < d) simd::store_partial(out + c, weighted_block(p, v + c, ld_v, n_keys, d - c), d - c);
}

}  // namespace

PMT_MULTIVERSION
void PMT_KERNEL(attention)(const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv,
               float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
               size_t d_head, bool causal, size_t q_offset, float* scratch) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  for (size_t i = 0; i < q_len; ++i) {
    const size_t n_keys = visible_keys(causal, q_offset, i, kv_len);
    for (size_t h = 0; h < n_heads; ++h) {
      const float* qh = q + i * ld_q + h * d_head;
      for (size_t j = 0; j < n_keys; ++j)
        scratch[j] = simd::dot(qh, k + j * ld_kv + h * d_head, d_head) * scale;
      softmax_inplace(scratch, n_keys);
      weighted_sum(scratch, v + h * d_head, ld_kv, n_keys, d_head, out + i * ld_out + h * d_head);
    }
  }
}

#if !defined(PMT_NEON_COPY)  // the references and the rest are compiled once
void attention_ref(const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv,
                   float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
                   size_t d_head, bool causal, size_t q_offset, float* scratch) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_head));
  for (size_t i = 0; i < q_len; ++i) {
    const size_t n_keys = visible_keys(causal, q_offset, i, kv_len);
    for (size_t h = 0; h < n_heads; ++h) {
      double m = -INFINITY;
      for (size_t j = 0; j < n_keys; ++j) {
        double s = 0.0;
        for (size_t c = 0; c < d_head; ++c)
          s += static_cast<double>(q[i * ld_q + h * d_head + c]) * k[j * ld_kv + h * d_head + c];
        scratch[j] = static_cast<float>(s * scale);
        m = std::max(m, static_cast<double>(scratch[j]));
      }
      double z = 0.0;
      for (size_t j = 0; j < n_keys; ++j) z += std::exp(scratch[j] - m);
      for (size_t c = 0; c < d_head; ++c) {
        double o = 0.0;
        for (size_t j = 0; j < n_keys; ++j)
          o += std::exp(scratch[j] - m) / z * v[j * ld_kv + h * d_head + c];
        out[i * ld_out + h * d_head + c] = static_cast<float>(o);
      }
    }
  }
}
#endif

}  // namespace pmt::kernels
