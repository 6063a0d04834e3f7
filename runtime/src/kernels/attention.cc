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

}  // namespace

PMT_MULTIVERSION
void attention(const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv,
               float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
               size_t d_head, bool causal, size_t q_offset, float* scratch) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  for (size_t i = 0; i < q_len; ++i) {
    const size_t n_keys = visible_keys(causal, q_offset, i, kv_len);
    for (size_t h = 0; h < n_heads; ++h) {
      const float* __restrict qh = q + i * ld_q + h * d_head;
      for (size_t j = 0; j < n_keys; ++j)
        scratch[j] = simd::dot(qh, k + j * ld_kv + h * d_head, d_head) * scale;
      softmax_inplace(scratch, n_keys);
      float* __restrict oh = out + i * ld_out + h * d_head;
      std::fill_n(oh, d_head, 0.0f);
      for (size_t j = 0; j < n_keys; ++j) {
        const float p = scratch[j];
        const float* __restrict vj = v + j * ld_kv + h * d_head;
        for (size_t c = 0; c < d_head; ++c) oh[c] += p * vj[c];
      }
    }
  }
}

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

}  // namespace pmt::kernels
