#include "train/ops/attention.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "gradient_check.h"

namespace pmt::train {
namespace {

// Straightforward attention in double: scores, mask, softmax, optional dropout, weighted sum.
std::vector<double> reference_attention(const float* q, const float* k, const float* v, const AttentionShape& s) {
  const int width = s.heads * s.d_head;
  std::vector<double> out(static_cast<size_t>(s.batch) * s.q_len * width, 0.0);
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.heads; ++h) {
      for (int i = 0; i < s.q_len; ++i) {
        std::vector<double> w(s.kv_len, 0.0);
        double m = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < s.kv_len; ++j) {
          const bool masked = (s.key_padding && s.key_padding[b * s.kv_len + j]) || (s.causal && j > i);
          if (masked) continue;
          double dot = 0.0;
          for (int c = 0; c < s.d_head; ++c)
            dot += static_cast<double>(q[(b * s.q_len + i) * s.q_stride + h * s.d_head + c]) *
                   k[(b * s.kv_len + j) * s.kv_stride + h * s.d_head + c];
          w[j] = dot / std::sqrt(static_cast<double>(s.d_head));
          m = std::max(m, w[j]);
        }
        if (std::isinf(m)) continue;  // every key masked: zero output
        double sum = 0.0;
        for (int j = 0; j < s.kv_len; ++j) {
          const bool masked = (s.key_padding && s.key_padding[b * s.kv_len + j]) || (s.causal && j > i);
          w[j] = masked ? 0.0 : std::exp(w[j] - m);
          sum += w[j];
        }
        for (int j = 0; j < s.kv_len; ++j) {
          double p = w[j] / sum;
          const uint64_t index = ((static_cast<uint64_t>(b) * s.heads + h) * s.q_len + i) * s.kv_len + j;
          if (s.dropout.active()) p *= s.dropout.factor(index);
          for (int c = 0; c < s.d_head; ++c)
            out[(b * s.q_len + i) * width + h * s.d_head + c] +=
                p * v[(b * s.kv_len + j) * s.kv_stride + h * s.d_head + c];
        }
      }
    }
  }
  return out;
}

// Checks forward against the reference and backward against finite differences for q, k, v
// held in `qbuf` (q) and `kvbuf` (k, v; may be the same buffer as qbuf).
void check_attention(std::vector<float>& qbuf, std::vector<float>& kvbuf, long q_off, long k_off, long v_off,
                     const AttentionShape& s) {
  const int width = s.heads * s.d_head;
  const size_t out_n = static_cast<size_t>(s.batch) * s.q_len * width;
  std::vector<float> out(out_n), probs(static_cast<size_t>(s.batch) * s.heads * s.q_len * s.kv_len);
  std::vector<float> scratch(attention_scratch_floats(s));
  auto run = [&] {
    attention_forward(out.data(), probs.data(), qbuf.data() + q_off, kvbuf.data() + k_off, kvbuf.data() + v_off, s, 0,
                      s.batch, scratch.data());
  };
  run();
  for (float x : out) REQUIRE(std::isfinite(x));
  const auto ref = reference_attention(qbuf.data() + q_off, kvbuf.data() + k_off, kvbuf.data() + v_off, s);
  CHECK(test::relative_error(out.data(), ref) < 1e-5);

  // Split into batch ranges (as threads do), with separate scratch: the same result, dropout included.
  std::vector<float> split(out_n), split_probs(probs.size()), scratch2(scratch.size());
  attention_forward(split.data(), split_probs.data(), qbuf.data() + q_off, kvbuf.data() + k_off,
                    kvbuf.data() + v_off, s, 0, 1, scratch.data());
  attention_forward(split.data(), split_probs.data(), qbuf.data() + q_off, kvbuf.data() + k_off,
                    kvbuf.data() + v_off, s, 1, s.batch, scratch2.data());
  CHECK(split == out);
  CHECK(split_probs == probs);

  const auto r = test::random_vector(out_n, 99);
  auto loss = [&] {
    run();
    return test::weighted_sum(out.data(), r);
  };
  std::vector<float> dq(qbuf.size(), 7.f), dkv(kvbuf.size(), 7.f);  // overwritten, not accumulated
  const bool fused = &qbuf == &kvbuf;
  float* dkv_base = fused ? dq.data() : dkv.data();
  run();
  attention_backward(dq.data() + q_off, dkv_base + k_off, dkv_base + v_off, r.data(), probs.data(),
                     qbuf.data() + q_off, kvbuf.data() + k_off, kvbuf.data() + v_off, s, 0, s.batch, scratch.data());
  for (float x : dq) REQUIRE(std::isfinite(x));
  CHECK(test::relative_error(dq.data(), test::numeric_gradient(qbuf, loss, 1e-2f)) < 2e-3);
  if (!fused) CHECK(test::relative_error(dkv.data(), test::numeric_gradient(kvbuf, loss, 1e-2f)) < 2e-3);
}

TEST_CASE("causal self-attention with key padding over a fused QKV buffer") {
  const int B = 2, H = 2, T = 4, dh = 3, D = H * dh;
  auto qkv = test::random_vector(static_cast<size_t>(B) * T * 3 * D, 1, -1.5f, 1.5f);
  // Row 1: key 0 is padding, so its query 0 (which sees only key 0) has every key masked.
  const std::vector<uint8_t> padding = {0, 0, 0, 1, 1, 0, 0, 1};
  AttentionShape s;
  s.batch = B;
  s.heads = H;
  s.q_len = s.kv_len = T;
  s.d_head = dh;
  s.q_stride = s.kv_stride = 3 * D;
  s.key_padding = padding.data();
  s.causal = true;
  check_attention(qkv, qkv, 0, D, 2 * D, s);

  std::vector<float> out(static_cast<size_t>(B) * T * D), probs(static_cast<size_t>(B) * H * T * T);
  std::vector<float> scratch(attention_scratch_floats(s));
  attention_forward(out.data(), probs.data(), qkv.data(), qkv.data() + D, qkv.data() + 2 * D, s, 0, B, scratch.data());
  for (int c = 0; c < D; ++c) CHECK(out[(1 * T + 0) * D + c] == 0.f);
  // Masked weights are exactly zero; visible ones sum to one.
  CHECK(probs[0 * T + 1] == 0.f);  // batch 0, head 0, query 0 cannot see key 1
  CHECK(probs[(0 * H + 1) * T * T + 3 * T + 3] == 0.f);  // key 3 of row 0 is padding
  CHECK(probs[2 * T + 0] + probs[2 * T + 1] + probs[2 * T + 2] == doctest::Approx(1.0));
}

TEST_CASE("cross-attention with padding and dropout on the weights") {
  const int B = 2, H = 2, Tq = 3, Tk = 5, dh = 2, D = H * dh;
  auto q = test::random_vector(static_cast<size_t>(B) * Tq * D, 2, -1.5f, 1.5f);
  auto kv = test::random_vector(static_cast<size_t>(B) * Tk * 2 * D, 3, -1.5f, 1.5f);
  const std::vector<uint8_t> padding = {0, 0, 0, 1, 1, 0, 0, 0, 0, 0};
  const DropoutMask mask(0.3f, 1, 2, 3);
  AttentionShape s;
  s.batch = B;
  s.heads = H;
  s.q_len = Tq;
  s.kv_len = Tk;
  s.d_head = dh;
  s.q_stride = D;
  s.kv_stride = 2 * D;
  s.key_padding = padding.data();
  SUBCASE("no dropout") { check_attention(q, kv, 0, 0, D, s); }
  SUBCASE("dropout") {
    s.dropout = mask;
    check_attention(q, kv, 0, 0, D, s);
  }
}

}  // namespace
}  // namespace pmt::train
