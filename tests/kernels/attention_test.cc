#include "kernels/attention.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/quantize.h"

namespace pmt::kernels {
namespace {

using testing::check_close;
using testing::random_floats;

using AttentionFn = decltype(&attention);

// Two heads of d_head 4 (scale 1/2) in rows padded to a stride of 11. Head 0: the scores of the
// two keys are [0, ln 3] -> weights [1/4, 3/4]. Head 1: equal scores -> weights [1/2, 1/2].
struct HandCase {
  static constexpr size_t kLd = 11, kDh = 4;
  // clang-format off
  std::vector<float> q = {2, 0, 0, 0, /*h1*/ 0, 0, 0, 1, /*pad*/ 9, 9, 9,
                          2, 0, 0, 0, /*h1*/ 0, 0, 0, 1, /*pad*/ 9, 9, 9};
  std::vector<float> k = {0, 5, 5, 5, /*h1*/ 7, 7, 7, 3, /*pad*/ 9, 9, 9,
                          std::log(3.0f), -5, 0, 0, /*h1*/ -7, 0, 1, 3, /*pad*/ 9, 9, 9};
  std::vector<float> v = {4, 0, 8, 1, /*h1*/ 2, 0, 0, 6, /*pad*/ 9, 9, 9,
                          0, 4, 0, 1, /*h1*/ 0, 2, 0, 6, /*pad*/ 9, 9, 9};
  // clang-format on
};

TEST_CASE("attention and its reference match hand-computed values") {
  for (AttentionFn fn : {attention, attention_ref}) {
    HandCase c;
    std::vector<float> out(2 * HandCase::kLd, -1.0f), scratch(2);
    fn(c.q.data(), HandCase::kLd, c.k.data(), c.v.data(), HandCase::kLd, out.data(), HandCase::kLd,
       2, 2, 2, HandCase::kDh, false, 0, scratch.data());
    const std::vector<float> row = {1, 3, 2, 1, /*h1*/ 1, 1, 0, 6, /*untouched*/ -1, -1, -1};
    check_close(out.data(), row.data(), row.size(), 1e-6f, 1e-6f);
    check_close(out.data() + HandCase::kLd, row.data(), row.size(), 1e-6f, 1e-6f);

    // Causal from position 0: query 0 sees key 0 only and copies v[0]; query 1 sees both.
    fn(c.q.data(), HandCase::kLd, c.k.data(), c.v.data(), HandCase::kLd, out.data(), HandCase::kLd,
       2, 2, 2, HandCase::kDh, true, 0, scratch.data());
    check_close(out.data(), c.v.data(), 8, 1e-6f, 1e-6f);
    check_close(out.data() + HandCase::kLd, row.data(), 8, 1e-6f, 1e-6f);
  }
}

TEST_CASE("attention over a single key copies its value row") {
  const size_t heads = 4, dh = 3, ld = heads * dh;
  const auto q = random_floats(3 * ld, -3, 3, 1);
  const auto kv = random_floats(ld, -3, 3, 2);
  std::vector<float> out(3 * ld);
  float scratch = 0;
  attention(q.data(), ld, kv.data(), kv.data(), ld, out.data(), ld, 3, 1, heads, dh, true, 0,
            &scratch);
  for (size_t i = 0; i < 3; ++i) check_close(out.data() + i * ld, kv.data(), ld, 1e-6f, 0);
}

// Random Q/K/V in padded rows; the scratch is exactly kv_len floats so ASan sees any overrun.
void check_against_reference(size_t q_len, size_t kv_len, size_t heads, size_t dh, bool causal,
                             size_t q_offset) {
  CAPTURE(q_len);
  CAPTURE(kv_len);
  CAPTURE(heads);
  CAPTURE(dh);
  CAPTURE(causal);
  CAPTURE(q_offset);
  const size_t ld_q = heads * dh + 1, ld_kv = heads * dh + 2, ld_out = heads * dh + 3;
  const auto seed = static_cast<uint32_t>(q_len * 1000 + kv_len * 10 + dh);
  const auto q = random_floats(q_len * ld_q, -2, 2, seed);
  const auto k = random_floats(kv_len * ld_kv, -2, 2, seed + 1);
  const auto v = random_floats(kv_len * ld_kv, -2, 2, seed + 2);
  std::vector<float> got(q_len * ld_out, 123.0f), want(q_len * ld_out, 123.0f);
  std::vector<float> scratch(kv_len);
  attention(q.data(), ld_q, k.data(), v.data(), ld_kv, got.data(), ld_out, q_len, kv_len, heads, dh,
            causal, q_offset, scratch.data());
  attention_ref(q.data(), ld_q, k.data(), v.data(), ld_kv, want.data(), ld_out, q_len, kv_len,
                heads, dh, causal, q_offset, scratch.data());
  check_close(got, want, 1e-5f, 1e-5f);  // also checks the padding columns were left alone

  // bfloat16 keys and values (scratch: kv_len + dh floats exactly): against their reference, and
  // against the float kernel on the same values widened.
  std::vector<uint16_t> k16(k.size()), v16(v.size());
  round_bf16_ref(k.data(), k16.data(), k.size());
  round_bf16_ref(v.data(), v16.data(), v.size());
  std::vector<float> k_wide(k.size()), v_wide(v.size());
  for (size_t i = 0; i < k.size(); ++i) k_wide[i] = std::bit_cast<float>(uint32_t{k16[i]} << 16);
  for (size_t i = 0; i < v.size(); ++i) v_wide[i] = std::bit_cast<float>(uint32_t{v16[i]} << 16);
  std::vector<float> got16(q_len * ld_out, 123.0f), want16(q_len * ld_out, 123.0f), wide(q_len * ld_out, 123.0f);
  std::vector<float> scratch16(kv_len + dh);
  attention_bf16(q.data(), ld_q, k16.data(), v16.data(), ld_kv, got16.data(), ld_out, q_len, kv_len, heads, dh,
                 causal, q_offset, scratch16.data());
  attention_bf16_ref(q.data(), ld_q, k16.data(), v16.data(), ld_kv, want16.data(), ld_out, q_len, kv_len, heads,
                     dh, causal, q_offset, scratch.data());
  attention(q.data(), ld_q, k_wide.data(), v_wide.data(), ld_kv, wide.data(), ld_out, q_len, kv_len, heads, dh,
            causal, q_offset, scratch.data());
  check_close(got16, want16, 1e-5f, 1e-5f);
  check_close(got16, wide, 1e-5f, 1e-5f);
}

TEST_CASE("attention matches the reference on odd shapes") {
  for (size_t kv_len : testing::kOddSizes)
    for (size_t dh : {size_t{1}, size_t{17}, size_t{40}, size_t{64}}) {
      check_against_reference(1, kv_len, 4, dh, false, 0);          // cross-attention, one query
      check_against_reference(3, kv_len, 2, dh, false, 0);          // encoder self-attention rows
      check_against_reference(1, kv_len, 4, dh, true, kv_len - 1);  // one incremental step
    }
  check_against_reference(17, 17, 3, 5, true, 0);  // whole-sequence causal
  check_against_reference(5, 20, 2, 8, true, 15);  // a block of new queries after a cache
  check_against_reference(3, 64, 2, 8, true, 2);   // keys beyond the last query are masked
}

TEST_CASE("causal attention over a sequence equals one incremental step per position") {
  const size_t len = 9, heads = 2, dh = 8, ld = heads * dh;
  const auto q = random_floats(len * ld, -2, 2, 11);
  const auto k = random_floats(len * ld, -2, 2, 12);
  const auto v = random_floats(len * ld, -2, 2, 13);
  for (AttentionFn fn : {attention, attention_ref}) {
    std::vector<float> whole(len * ld), steps(len * ld), scratch(len);
    fn(q.data(), ld, k.data(), v.data(), ld, whole.data(), ld, len, len, heads, dh, true, 0,
       scratch.data());
    for (size_t t = 0; t < len; ++t)
      fn(q.data() + t * ld, ld, k.data(), v.data(), ld, steps.data() + t * ld, ld, 1, t + 1, heads,
         dh, false, 0, scratch.data());
    check_close(whole, steps, 1e-6f, 1e-6f);
  }
}

}  // namespace
}  // namespace pmt::kernels
