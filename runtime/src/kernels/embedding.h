// The embedding table, read both ways: token lookup, scaled by sqrt(d) and summed with the
// sinusoidal positional encoding (Vaswani et al. 2017, section 3.4 and 3.5), and the logits of
// chosen vocabulary rows (the output projection shares the table). No allocation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::kernels {

// y[t,:] = table[ids[t],:] * sqrt(d) + pos_table[pos0 + t,:] for t < n.
// table: [vocab, d] float; pos_table: [>= pos0 + n, d] (from sinusoid_table); y: [n, d].
// The caller guarantees 0 <= ids[t] < vocab.
void embed_f32(const float* table, const int32_t* ids, size_t n, size_t d, const float* pos_table,
               size_t pos0, float* y);
// The same from a per-row int8 table: table[v,:] * row_scales[v] stands for the float row.
void embed_qc8(const int8_t* table, const float* row_scales, const int32_t* ids, size_t n, size_t d,
               const float* pos_table, size_t pos0, float* y);
// Logits of the vocabulary rows `ids` only: out[r * out_stride + j] = dot(h[r,:], table[ids[j],:])
// for r < rows, j < n. h: [rows, d]; out_stride >= n. The caller guarantees 0 <= ids[j] < vocab.
void row_logits_f32(const float* h, size_t rows, const float* table, const int32_t* ids, size_t n, size_t d,
                    float* out, size_t out_stride);
// The same from a per-row int8 table, each row first dequantized into scratch [d] as
// dequantize_row_qc8 does (w * scale), so a logit equals that row's float dot product exactly.
void row_logits_qc8(const float* h, size_t rows, const int8_t* table, const float* row_scales, const int32_t* ids,
                    size_t n, size_t d, float* scratch, float* out, size_t out_stride);
// pe: [max_len, d]. PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d)),
// computed in double and rounded once to float. Called once at load, not per token.
void sinusoid_table(float* pe, size_t max_len, size_t d);

// Plain scalar references.
void embed_f32_ref(const float* table, const int32_t* ids, size_t n, size_t d,
                   const float* pos_table, size_t pos0, float* y);
void embed_qc8_ref(const int8_t* table, const float* row_scales, const int32_t* ids, size_t n,
                   size_t d, const float* pos_table, size_t pos0, float* y);
void row_logits_f32_ref(const float* h, size_t rows, const float* table, const int32_t* ids, size_t n, size_t d,
                        float* out, size_t out_stride);
void row_logits_qc8_ref(const float* h, size_t rows, const int8_t* table, const float* row_scales,
                        const int32_t* ids, size_t n, size_t d, float* out, size_t out_stride);

}  // namespace pmt::kernels
