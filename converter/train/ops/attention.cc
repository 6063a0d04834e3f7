#include "train/ops/attention.h"

#include <cmath>
#include <limits>

#include "train/ops/gemm.h"

namespace pmt::train {

namespace {

// Pointers of one (batch row, head) block.
struct Block {
  long q_off, kv_off, out_off, probs_off;  // float offsets of the block's first element
  const uint8_t* padding;                  // [kv_len] or null
};

Block block_at(const AttentionShape& s, int b, int h) {
  const long dh = s.d_head, width = static_cast<long>(s.heads) * dh;
  Block blk;
  blk.q_off = static_cast<long>(b) * s.q_len * s.q_stride + h * dh;
  blk.kv_off = static_cast<long>(b) * s.kv_len * s.kv_stride + h * dh;
  blk.out_off = static_cast<long>(b) * s.q_len * width + h * dh;
  blk.probs_off = (static_cast<long>(b) * s.heads + h) * s.q_len * s.kv_len;
  blk.padding = s.key_padding ? s.key_padding + static_cast<long>(b) * s.kv_len : nullptr;
  return blk;
}

// In place: row i of p holds raw scores on entry, masked softmax weights on exit.
void masked_softmax(float* p, const AttentionShape& s, const uint8_t* padding) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < s.q_len; ++i) {
    float* row = p + static_cast<long>(i) * s.kv_len;
    const int visible = s.causal ? (i + 1 < s.kv_len ? i + 1 : s.kv_len) : s.kv_len;
    float m = kNegInf;
    for (int j = 0; j < visible; ++j) {
      if (padding && padding[j]) row[j] = kNegInf;
      m = row[j] > m ? row[j] : m;
    }
    for (int j = visible; j < s.kv_len; ++j) row[j] = 0.f;
    if (m == kNegInf) {  // every key masked: zero weights instead of 0/0
      for (int j = 0; j < visible; ++j) row[j] = 0.f;
      continue;
    }
    float sum = 0.f;
    for (int j = 0; j < visible; ++j) {
      row[j] = std::exp(row[j] - m);  // exp(-inf) = 0 for masked keys
      sum += row[j];
    }
    const float inv = 1.f / sum;
    for (int j = 0; j < visible; ++j) row[j] *= inv;
  }
}

}  // namespace

long attention_scratch_floats(const AttentionShape& s) { return 2L * s.q_len * s.kv_len; }

void attention_forward(float* out, float* probs, const float* q, const float* k, const float* v,
                       const AttentionShape& s, int batch_begin, int batch_end, float* scratch) {
  const int width = s.heads * s.d_head;
  const float scale = 1.f / std::sqrt(static_cast<float>(s.d_head));
  const long block = static_cast<long>(s.q_len) * s.kv_len;
  for (int b = batch_begin; b < batch_end; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const Block blk = block_at(s, b, h);
      float* p = probs + blk.probs_off;
      gemm(false, true, s.q_len, s.kv_len, s.d_head, scale, q + blk.q_off,
                  s.q_stride, k + blk.kv_off, s.kv_stride, 0.f, p, s.kv_len);
      masked_softmax(p, s, blk.padding);
      const float* weights = p;
      if (s.dropout.active()) {
        dropout_forward(scratch, p, block, s.dropout, static_cast<uint64_t>(blk.probs_off));
        weights = scratch;
      }
      gemm(false, false, s.q_len, s.d_head, s.kv_len, 1.f, weights, s.kv_len,
                  v + blk.kv_off, s.kv_stride, 0.f, out + blk.out_off, width);
    }
  }
}

void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* probs, const float* q,
                        const float* k, const float* v, const AttentionShape& s, int batch_begin, int batch_end,
                        float* scratch) {
  const int width = s.heads * s.d_head;
  const float scale = 1.f / std::sqrt(static_cast<float>(s.d_head));
  const long block = static_cast<long>(s.q_len) * s.kv_len;
  float* dp = scratch;               // d(loss)/d(weights), then d(loss)/d(scores)
  float* dropped = scratch + block;  // weights after dropout
  for (int b = batch_begin; b < batch_end; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      const Block blk = block_at(s, b, h);
      const float* p = probs + blk.probs_off;
      const float* weights = p;
      if (s.dropout.active()) {
        dropout_forward(dropped, p, block, s.dropout, static_cast<uint64_t>(blk.probs_off));
        weights = dropped;
      }
      // dV = W^T dO; dW = dO V^T.
      gemm(true, false, s.kv_len, s.d_head, s.q_len, 1.f, weights, s.kv_len,
                  dout + blk.out_off, width, 0.f, dv + blk.kv_off, s.kv_stride);
      gemm(false, true, s.q_len, s.kv_len, s.d_head, 1.f, dout + blk.out_off,
                  width, v + blk.kv_off, s.kv_stride, 0.f, dp, s.kv_len);
      // Through the dropout: d(weights before dropout) = d(weights after) * mask factor.
      if (s.dropout.active()) dropout_forward(dp, dp, block, s.dropout, static_cast<uint64_t>(blk.probs_off));
      // Softmax backward per row: dS_j = P_j (dP_j - sum_k P_k dP_k).
      for (int i = 0; i < s.q_len; ++i) {
        const float* pr = p + static_cast<long>(i) * s.kv_len;
        float* dr = dp + static_cast<long>(i) * s.kv_len;
        float dot = 0.f;
        for (int j = 0; j < s.kv_len; ++j) dot += pr[j] * dr[j];
        for (int j = 0; j < s.kv_len; ++j) dr[j] = pr[j] * (dr[j] - dot);
      }
      // S = scale * Q K^T: dQ = scale * dS K; dK = scale * dS^T Q.
      gemm(false, false, s.q_len, s.d_head, s.kv_len, scale, dp, s.kv_len,
                  k + blk.kv_off, s.kv_stride, 0.f, dq + blk.q_off, s.q_stride);
      gemm(true, false, s.kv_len, s.d_head, s.q_len, scale, dp, s.kv_len,
                  q + blk.q_off, s.q_stride, 0.f, dk + blk.kv_off, s.kv_stride);
    }
  }
}

}  // namespace pmt::train
