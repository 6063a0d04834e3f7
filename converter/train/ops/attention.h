// Multi-head scaled dot-product attention (Vaswani et al. 3.2) over projected Q, K, V, computed per
// (batch row, head) with small GEMMs that read the heads in place through row strides.
#pragma once

#include <cstdint>

#include "train/ops/dropout.h"

namespace pmt::train {

// Layout: query row (b, t) starts at q + (b * q_len + t) * q_stride and head h is its columns
// [h * d_head, (h + 1) * d_head); keys and values likewise with kv_stride. So a fused [n, 3D] QKV
// projection is read as q = qkv, k = qkv + D, v = qkv + 2D with both strides 3D.
struct AttentionShape {
  int batch = 0, heads = 0, q_len = 0, kv_len = 0, d_head = 0;
  int q_stride = 0, kv_stride = 0;
  const uint8_t* key_padding = nullptr;  // [batch, kv_len], nonzero = key masked; null = none
  bool causal = false;                   // query t sees keys 0..t only
  DropoutMask dropout;                   // on the attention weights (flat index into probs); p = 0: none
};

// Floats of scratch one attention_forward / attention_backward call needs.
long attention_scratch_floats(const AttentionShape& s);

// Both functions work on the batch rows [batch_begin, batch_end) only, so a batch can be split
// across threads (each with its own scratch); pointers always address the whole batch.

// out: [batch, q_len, heads * d_head], overwritten. probs: [batch, heads, q_len, kv_len], the
// softmax weights before dropout, kept for the backward pass; masked weights are exactly 0 and a
// query with every key masked gets all-zero weights (so a zero output), never NaN.
void attention_forward(float* out, float* probs, const float* q, const float* k, const float* v,
                       const AttentionShape& s, int batch_begin, int batch_end, float* scratch);

// WRITES dq, dk, dv (same layouts and strides as q, k, v; every head's columns of every row) from
// dout [batch, q_len, heads * d_head].
void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* probs, const float* q,
                        const float* k, const float* v, const AttentionShape& s, int batch_begin, int batch_end,
                        float* scratch);

}  // namespace pmt::train
