// Scaled dot-product attention for one sentence, all heads at once, reading the heads in place
// from the projected Q/K/V rows (no transposes, no copies). No allocation: the caller passes
// `scratch` for the attention weights.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::kernels {

// For every query row i < q_len and head h < n_heads, with scale = 1 / sqrt(d_head):
//   p_j = softmax_j(q[i, h*dh : (h+1)*dh] . k[j, h*dh : (h+1)*dh] * scale),  j visible to i
//   out[i, h*dh : (h+1)*dh] = sum_j p_j * v[j, h*dh : (h+1)*dh]
// Shapes (row-major, strides in floats): q [q_len, ld_q], k and v [kv_len, ld_kv],
// out [q_len, ld_out]; each ld >= n_heads * d_head. kv_len >= 1.
// Visibility: every j < kv_len; if causal, query i sits at absolute position q_offset + i and sees
// only keys j <= q_offset + i (q_offset = number of cached positions before this call's queries,
// e.g. kv_len - 1 for one incremental decoder step).
// scratch: at least kv_len floats, overwritten. out must not overlap q, k or v.
void attention(const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv,
               float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
               size_t d_head, bool causal, size_t q_offset, float* scratch);
// The same with keys and values in bfloat16 (the high 16 bits of a float, as uint16_t), as the
// decoder's caches of an int8 model hold them. scratch: at least kv_len + d_head floats.
void attention_bf16(const float* q, size_t ld_q, const uint16_t* k, const uint16_t* v, size_t ld_kv,
                    float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
                    size_t d_head, bool causal, size_t q_offset, float* scratch);
// Plain scalar references (double accumulation, std::exp).
void attention_bf16_ref(const float* q, size_t ld_q, const uint16_t* k, const uint16_t* v, size_t ld_kv,
                        float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
                        size_t d_head, bool causal, size_t q_offset, float* scratch);
void attention_ref(const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv,
                   float* out, size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads,
                   size_t d_head, bool causal, size_t q_offset, float* scratch);

}  // namespace pmt::kernels
