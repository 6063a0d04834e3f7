#include "kernels/embedding.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace pmt::kernels {
namespace {

using testing::check_close;
using testing::random_floats;

TEST_CASE("sinusoid_table matches the formula at hand-picked positions") {
  // d = 4: column pairs (0,1) at frequency 1 and (2,3) at 1/10000^(2/4) = 1/100.
  std::vector<float> pe(6 * 4);
  sinusoid_table(pe.data(), 6, 4);
  check_close(pe.data(), std::vector<float>{0, 1, 0, 1}.data(), 4, 0, 0);
  const std::vector<float> pos5 = {std::sin(5.0f), std::cos(5.0f), std::sin(0.05f),
                                   std::cos(0.05f)};
  check_close(pe.data() + 5 * 4, pos5.data(), 4, 1e-6f, 1e-7f);

  // Odd d = 3: the last column is a sine with no cosine partner, frequency 1/10000^(2/3).
  std::vector<float> odd(3 * 3);
  sinusoid_table(odd.data(), 3, 3);
  const std::vector<float> pos2 = {std::sin(2.0f), std::cos(2.0f),
                                   static_cast<float>(std::sin(2.0 / std::pow(10000.0, 2.0 / 3)))};
  check_close(odd.data() + 2 * 3, pos2.data(), 3, 1e-6f, 1e-7f);
}

TEST_CASE("embed_f32 and embed_qc8 and their references match hand-computed values") {
  // d = 4, so rows are scaled by 2. Two tokens [2, 0] at positions 1 and 2.
  const size_t d = 4;
  const std::vector<float> table = {1, 2, 3, 4, 0, 0, 0, 0, -1, 0.5f, 0, 8};
  const std::vector<int8_t> table_q = {4, 8, 12, 16, 0, 0, 0, 0, -4, 2, 0, 32};  // scale 0.25
  const std::vector<float> row_scales = {0.25f, 1.0f, 0.25f};
  const std::vector<int32_t> ids = {2, 0};
  const std::vector<float> pos = {0, 0, 0, 0, 10, 20, 30, 40, 100, 200, 300, 400};
  const std::vector<float> want = {8, 21, 30, 56, 102, 204, 306, 408};
  for (auto* fn : {embed_f32, embed_f32_ref}) {
    std::vector<float> y(2 * d);
    fn(table.data(), ids.data(), 2, d, pos.data(), 1, y.data());
    CHECK(y == want);
  }
  for (auto* fn : {embed_qc8, embed_qc8_ref}) {
    std::vector<float> y(2 * d);
    fn(table_q.data(), row_scales.data(), ids.data(), 2, d, pos.data(), 1, y.data());
    CHECK(y == want);
  }
}

TEST_CASE("embed_f32 and embed_qc8 match the references on odd sizes") {
  const size_t vocab = 11, n = 5, pos0 = 3;
  const std::vector<int32_t> ids = {10, 0, 3, 3, 7};
  for (size_t d : testing::kOddSizes) {
    CAPTURE(d);
    const auto table = random_floats(vocab * d, -1, 1, static_cast<uint32_t>(d));
    std::vector<int8_t> table_q(vocab * d);
    for (size_t i = 0; i < table_q.size(); ++i)
      table_q[i] = static_cast<int8_t>(static_cast<int>(i * 29 % 255) - 127);
    const auto row_scales = random_floats(vocab, 0.001f, 0.02f, 7);
    std::vector<float> pe((pos0 + n) * d);
    sinusoid_table(pe.data(), pos0 + n, d);
    std::vector<float> got(n * d), want(n * d);
    embed_f32(table.data(), ids.data(), n, d, pe.data(), pos0, got.data());
    embed_f32_ref(table.data(), ids.data(), n, d, pe.data(), pos0, want.data());
    check_close(got, want, 1e-6f, 1e-6f);
    embed_qc8(table_q.data(), row_scales.data(), ids.data(), n, d, pe.data(), pos0, got.data());
    embed_qc8_ref(table_q.data(), row_scales.data(), ids.data(), n, d, pe.data(), pos0,
                  want.data());
    check_close(got, want, 1e-6f, 1e-6f);
  }
}

TEST_CASE("row_logits_f32 and row_logits_qc8 match hand-computed values and the references") {
  // Hand-computed: d = 2, rows h = [1, 2] and [0, -1]; table rows 0: [1, 1], 1: [2, -1] (int8
  // [4, -2] at scale 0.5), 2: [0, 3]; ids [2, 1] into an output with stride 3.
  const std::vector<float> h = {1, 2, 0, -1};
  const std::vector<float> table = {1, 1, 2, -1, 0, 3};
  const std::vector<int8_t> table_q = {2, 2, 4, -2, 0, 6};
  const std::vector<float> scales = {0.5f, 0.5f, 0.5f};
  const std::vector<int32_t> ids = {2, 1};
  const std::vector<float> want = {6, 0, -7, -3, 1, -7};  // column 2 of each row untouched
  std::vector<float> out(6, -7), scratch(2);
  row_logits_f32(h.data(), 2, table.data(), ids.data(), 2, 2, out.data(), 3);
  CHECK(out == want);
  std::fill(out.begin(), out.end(), -7.f);
  row_logits_qc8(h.data(), 2, table_q.data(), scales.data(), ids.data(), 2, 2, scratch.data(), out.data(), 3);
  CHECK(out == want);
  std::fill(out.begin(), out.end(), -7.f);
  row_logits_f32_ref(h.data(), 2, table.data(), ids.data(), 2, 2, out.data(), 3);
  CHECK(out == want);
  std::fill(out.begin(), out.end(), -7.f);
  row_logits_qc8_ref(h.data(), 2, table_q.data(), scales.data(), ids.data(), 2, 2, out.data(), 3);
  CHECK(out == want);

  // Odd sizes, repeated and unordered ids, several rows.
  const size_t vocab = 13, rows = 3;
  const std::vector<int32_t> some = {12, 0, 5, 5, 9, 1, 7};
  for (size_t d : testing::kOddSizes) {
    CAPTURE(d);
    const auto hs = random_floats(rows * d, -2, 2, static_cast<uint32_t>(d) + 1);
    const auto tf = random_floats(vocab * d, -1, 1, static_cast<uint32_t>(d) + 2);
    std::vector<int8_t> tq(vocab * d);
    for (size_t i = 0; i < tq.size(); ++i) tq[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
    const auto rs = random_floats(vocab, 0.001f, 0.02f, 11);
    const size_t n = some.size(), stride = n + 2;
    std::vector<float> got(rows * stride), ref(rows * stride), w(d);
    row_logits_f32(hs.data(), rows, tf.data(), some.data(), n, d, got.data(), stride);
    row_logits_f32_ref(hs.data(), rows, tf.data(), some.data(), n, d, ref.data(), stride);
    for (size_t r = 0; r < rows; ++r) check_close(got.data() + r * stride, ref.data() + r * stride, n, 1e-5f, 1e-5f);
    row_logits_qc8(hs.data(), rows, tq.data(), rs.data(), some.data(), n, d, w.data(), got.data(), stride);
    row_logits_qc8_ref(hs.data(), rows, tq.data(), rs.data(), some.data(), n, d, ref.data(), stride);
    for (size_t r = 0; r < rows; ++r) check_close(got.data() + r * stride, ref.data() + r * stride, n, 1e-5f, 1e-5f);
  }
}

}  // namespace
}  // namespace pmt::kernels
