#include "kernels/attention.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

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

PMT_INLINE simd::Vec weighted_block(const float* p, const float* v, size_t ld_v, size_t n_keys, size_t n) {
  simd::Vec acc[4] = {};
  size_t j = 0;
  for (; j + 4 <= n_keys; j += 4)
    for (size_t u = 0; u < 4; ++u) acc[u] += p[j + u] * value_row(v, j + u, ld_v, n);
  for (; j < n_keys; ++j) acc[0] += p[j] * value_row(v, j, ld_v, n);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// out[c] = sum_j p[j] * v[j * ld_v + c] for c < d, one register of columns at a time.
PMT_INLINE void weighted_sum(const float* p, const float* v, size_t ld_v, size_t n_keys, size_t d, float* out) {
  size_t c = 0;
  for (; c + simd::kLanes <= d; c += simd::kLanes)
    simd::store(out + c, weighted_block(p, v + c, ld_v, n_keys, simd::kLanes));
  if (c < d) simd::store_partial(out + c, weighted_block(p, v + c, ld_v, n_keys, d - c), d - c);
}

PMT_INLINE const float* prepare_query(const float* q, size_t, float*, const float* /*k*/) { return q; }
PMT_INLINE float score(const float* q, const float* k, size_t d) { return simd::dot(q, k, d); }

// bfloat16 keys and values go by blocks of kPair columns split into even and odd halves
// (simd::load_bf16_pairs); the columns past the last whole block one by one.
constexpr size_t kPair = 2 * simd::kLanes;

// The query in the keys' split: per block, its even columns then its odd ones; the tail as is.
PMT_INLINE const float* prepare_query(const float* q, size_t d, float* split, const uint16_t* /*k*/) {
  size_t c = 0;
  for (; c + kPair <= d; c += kPair)
    for (size_t l = 0; l < simd::kLanes; ++l) {
      split[c + l] = q[c + 2 * l];
      split[c + simd::kLanes + l] = q[c + 2 * l + 1];
    }
  for (; c < d; ++c) split[c] = q[c];
  return split;
}

PMT_INLINE float score(const float* q_split, const uint16_t* k, size_t d) {
  simd::Vec acc = {};
  size_t c = 0;
  for (; c + kPair <= d; c += kPair) {
    const simd::Halves h = simd::load_bf16_pairs(k + c);
    acc += simd::load(q_split + c) * h.even;
    acc += simd::load(q_split + c + simd::kLanes) * h.odd;
  }
  float s = simd::hsum(acc);
  for (; c < d; ++c) s += q_split[c] * simd::widen_bf16(k[c]);
  return s;
}

PMT_INLINE void weighted_sum(const float* p, const uint16_t* v, size_t ld_v, size_t n_keys, size_t d, float* out) {
  size_t c = 0;
  for (; c + kPair <= d; c += kPair) {
    simd::Vec even[2] = {}, odd[2] = {};
    size_t j = 0;
    for (; j + 2 <= n_keys; j += 2)
      for (size_t u = 0; u < 2; ++u) {
        const simd::Halves h = simd::load_bf16_pairs(v + (j + u) * ld_v + c);
        even[u] += p[j + u] * h.even;
        odd[u] += p[j + u] * h.odd;
      }
    if (j < n_keys) {
      const simd::Halves h = simd::load_bf16_pairs(v + j * ld_v + c);
      even[0] += p[j] * h.even;
      odd[0] += p[j] * h.odd;
    }
    float e[simd::kLanes], o[simd::kLanes];
    simd::store(e, even[0] + even[1]);
    simd::store(o, odd[0] + odd[1]);
    for (size_t l = 0; l < simd::kLanes; ++l) {
      out[c + 2 * l] = e[l];
      out[c + 2 * l + 1] = o[l];
    }
  }
  for (; c < d; ++c) {
    float s = 0.0f;
    for (size_t j = 0; j < n_keys; ++j) s += p[j] * simd::widen_bf16(v[j * ld_v + c]);
    out[c] = s;
  }
}

// attention / attention_bf16: KV is float or bfloat16. scratch: kv_len scores, then (bfloat16)
// d_head floats of the split query.
template <class KV>
PMT_INLINE void attend(const float* q, size_t ld_q, const KV* k, const KV* v, size_t ld_kv, float* out,
                       size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads, size_t d_head, bool causal,
                       size_t q_offset, float* scratch) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  for (size_t i = 0; i < q_len; ++i) {
    const size_t n_keys = visible_keys(causal, q_offset, i, kv_len);
    for (size_t h = 0; h < n_heads; ++h) {
      const float* qh = prepare_query(q + i * ld_q + h * d_head, d_head, scratch + kv_len, k);
      for (size_t j = 0; j < n_keys; ++j) scratch[j] = score(qh, k + j * ld_kv + h * d_head, d_head) * scale;
      softmax_inplace(scratch, n_keys);
      weighted_sum(scratch, v + h * d_head, ld_kv, n_keys, d_head, out + i * ld_out + h * d_head);
    }
  }
}

}  // namespace

PMT_MULTIVERSION
void PMT_KERNEL(attention)(const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv,
               float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
               size_t d_head, bool causal, size_t q_offset, float* scratch) {
  attend(q, ld_q, k, v, ld_kv, out, ld_out, q_len, kv_len, n_heads, d_head, causal, q_offset, scratch);
}

PMT_MULTIVERSION
void PMT_KERNEL(attention_bf16)(const float* q, size_t ld_q, const uint16_t* k, const uint16_t* v, size_t ld_kv,
                    float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
                    size_t d_head, bool causal, size_t q_offset, float* scratch) {
  attend(q, ld_q, k, v, ld_kv, out, ld_out, q_len, kv_len, n_heads, d_head, causal, q_offset, scratch);
}

#if !defined(PMT_NEON_COPY)  // the references and the rest are compiled once
namespace {

float widen(float x) { return x; }
float widen(uint16_t x) { return simd::widen_bf16(x); }

template <class KV>
void attend_ref(const float* q, size_t ld_q, const KV* k, const KV* v, size_t ld_kv, float* out, size_t ld_out,
                size_t q_len, size_t kv_len, size_t n_heads, size_t d_head, bool causal, size_t q_offset,
                float* scratch) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_head));
  for (size_t i = 0; i < q_len; ++i) {
    const size_t n_keys = visible_keys(causal, q_offset, i, kv_len);
    for (size_t h = 0; h < n_heads; ++h) {
      double m = -INFINITY;
      for (size_t j = 0; j < n_keys; ++j) {
        double s = 0.0;
        for (size_t c = 0; c < d_head; ++c)
          s += static_cast<double>(q[i * ld_q + h * d_head + c]) * widen(k[j * ld_kv + h * d_head + c]);
        scratch[j] = static_cast<float>(s * scale);
        m = std::max(m, static_cast<double>(scratch[j]));
      }
      double z = 0.0;
      for (size_t j = 0; j < n_keys; ++j) z += std::exp(scratch[j] - m);
      for (size_t c = 0; c < d_head; ++c) {
        double o = 0.0;
        for (size_t j = 0; j < n_keys; ++j)
          o += std::exp(scratch[j] - m) / z * widen(v[j * ld_kv + h * d_head + c]);
        out[i * ld_out + h * d_head + c] = static_cast<float>(o);
      }
    }
  }
}

}  // namespace

void attention_ref(const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv,
                   float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
                   size_t d_head, bool causal, size_t q_offset, float* scratch) {
  attend_ref(q, ld_q, k, v, ld_kv, out, ld_out, q_len, kv_len, n_heads, d_head, causal, q_offset, scratch);
}
void attention_bf16_ref(const float* q, size_t ld_q, const uint16_t* k, const uint16_t* v, size_t ld_kv,
                        float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
                        size_t d_head, bool causal, size_t q_offset, float* scratch) {
  attend_ref(q, ld_q, k, v, ld_kv, out, ld_out, q_len, kv_len, n_heads, d_head, causal, q_offset, scratch);
}
#endif

}  // namespace pmt::kernels
