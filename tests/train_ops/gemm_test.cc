#include "train/ops/gemm.h"

#include <cblas.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "train/ops/gemm_bf16.h"

namespace pmt::train {
namespace {

using bf16::bf16_to_float;
using bf16::round_to_bf16;

// An independent fp32 -> bf16 reference: of the two bfloat16 values around x, the nearer one
// (compared in double), the one with an even last bit on a tie; NaN quieted, subnormals to signed zero.
uint16_t reference_bf16(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  if (std::isnan(x)) return static_cast<uint16_t>((u >> 16) | 0x40);
  if (x != 0.f && std::fabs(x) < std::numeric_limits<float>::min()) return static_cast<uint16_t>((u >> 16) & 0x8000);
  if (std::isinf(x)) return static_cast<uint16_t>(u >> 16);
  const auto down = static_cast<uint16_t>(u >> 16);
  const auto up = static_cast<uint16_t>(down + 1);  // one step further from zero (0x7F80 = infinity)
  const double dx = x, d_down = std::fabs(dx - bf16_to_float(down));
  // Past the largest bfloat16 the upper neighbour is infinity: measure it as the next power of two.
  const double up_value = (up & 0x7FFF) == 0x7F80 ? std::copysign(std::ldexp(1.0, 128), dx) : bf16_to_float(up);
  const double d_up = std::fabs(up_value - dx);
  if (d_down != d_up) return d_down < d_up ? down : up;
  return (down & 1) ? up : down;
}

float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// Floats that exercise every rounding case: ties both ways, NaN, infinity, overflow, subnormals.
std::vector<float> special_values() {
  std::vector<float> v;
  for (uint32_t u : {0x00000000u, 0x80000000u, 0x3F800000u, 0x3F808000u, 0x3F818000u, 0x3F808001u, 0x3F80FFFFu,
                     0xBF808000u, 0xBF818000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7F800001u, 0xFFA00000u,
                     0x7FFFFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F7F7FFFu, 0x7F7F8000u, 0x00000001u, 0x807FFFFFu,
                     0x00400000u, 0x00800000u, 0x80800000u, 0x0080FFFFu, 0x00808000u, 0x00818000u})
    v.push_back(from_bits(u));
  return v;
}

TEST_CASE("bf16 rounding: nearest even, NaN, infinity, overflow, subnormals") {
  CHECK(round_to_bf16(1.f) == 0x3F80);
  CHECK(round_to_bf16(from_bits(0x3F808000u)) == 0x3F80);  // tie, down to even
  CHECK(round_to_bf16(from_bits(0x3F818000u)) == 0x3F82);  // tie, up to even
  CHECK(round_to_bf16(from_bits(0x3F808001u)) == 0x3F81);  // just past the tie
  CHECK(round_to_bf16(from_bits(0xBF818000u)) == 0xBF82);
  CHECK(round_to_bf16(std::numeric_limits<float>::infinity()) == 0x7F80);
  CHECK(round_to_bf16(-std::numeric_limits<float>::infinity()) == 0xFF80);
  CHECK(round_to_bf16(std::numeric_limits<float>::max()) == 0x7F80);  // overflows to infinity
  CHECK(round_to_bf16(from_bits(0x7F7F7FFFu)) == 0x7F7F);             // the largest bfloat16
  CHECK(round_to_bf16(from_bits(0x7F800001u)) == 0x7FC0);             // signalling NaN: quiet NaN
  CHECK(round_to_bf16(from_bits(0xFFA00000u)) == 0xFFE0);             // sign and payload kept
  CHECK(std::isnan(bf16_to_float(round_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(round_to_bf16(from_bits(0x00000001u)) == 0x0000);  // subnormals: signed zero
  CHECK(round_to_bf16(from_bits(0x807FFFFFu)) == 0x8000);
  CHECK(round_to_bf16(std::numeric_limits<float>::min()) == 0x0080);
  for (float x : special_values()) CHECK(round_to_bf16(x) == reference_bf16(x));
  // Every exponent and sign, many mantissas: bit patterns 251 apart (17 million).
  long mismatches = 0;
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 251) {
    const float x = from_bits(static_cast<uint32_t>(u));
    mismatches += round_to_bf16(x) != reference_bf16(x);
  }
  CHECK(mismatches == 0);
}

// Random values with the special ones mixed in.
std::vector<float> random_matrix(size_t n, uint32_t seed, bool specials) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  if (specials) {
    const std::vector<float> s = special_values();
    for (size_t i = 0; i < n; i += 7) v[i] = s[(i / 7) % s.size()];
  }
  return v;
}

TEST_CASE("bf16 packing: A in 16-row panels, B in VNNI pairs, zero padding, ld past the row") {
  // Expected layouts written out from the formula in gemm_bf16.h, element by element.
  for (bool trans : {false, true}) {
    for (int rows : {1, 16, 17, 33}) {
      for (int k : {1, 31, 32, 33, 70}) {
        CAPTURE(trans);
        CAPTURE(rows);
        CAPTURE(k);
        const int kp = bf16::round_up(k, 32), np = bf16::panels(rows);
        const int ld = (trans ? rows : k) + 3, ldb = (trans ? k : rows) + 3;
        // op(a)(r, kk) of an A of [rows, k] and op(b)(kk, j) of a B of [k, rows], both stored with
        // leading dimensions 3 past their rows.
        const std::vector<float> a = random_matrix(static_cast<size_t>(trans ? k : rows) * ld, rows * 100 + k, true);
        const std::vector<float> b = random_matrix(static_cast<size_t>(trans ? rows : k) * ldb, rows * 100 + k + 1, true);
        auto a_at = [&](int r, int kk) { return trans ? a[kk * ld + r] : a[r * ld + kk]; };
        auto b_at = [&](int kk, int j) { return trans ? b[j * ldb + kk] : b[kk * ldb + j]; };
        std::vector<uint16_t> pa(static_cast<size_t>(np) * 16 * kp, 0xDEAD), pb(pa.size(), 0xDEAD);
        bf16::pack_a(pa.data(), a.data(), ld, trans, rows, k, 0, np);
        bf16::pack_b(pb.data(), b.data(), ldb, trans, k, rows, 0, np);
        long bad_a = 0, bad_b = 0;
        for (int r = 0; r < np * 16; ++r) {
          for (int kk = 0; kk < kp; ++kk) {
            const uint16_t want_a = r < rows && kk < k ? reference_bf16(a_at(r, kk)) : 0;
            const uint16_t want_b = r < rows && kk < k ? reference_bf16(b_at(kk, r)) : 0;
            const size_t at_a = (r / 16) * 16 * kp + (kk / 32) * 512 + (r % 16) * 32 + kk % 32;
            const size_t at_b = (r / 16) * 16 * kp + (kk / 32) * 512 + (kk % 32 / 2) * 32 + (r % 16) * 2 + kk % 2;
            bad_a += pa[at_a] != want_a;
            bad_b += pb[at_b] != want_b;
          }
        }
        CHECK(bad_a == 0);
        CHECK(bad_b == 0);
      }
    }
  }
}

// Unit roundoff of fp32.
constexpr double kU = 1.0 / (1 << 24);

struct Shape {
  int m, n, k;
};

// Runs the bf16 product (bf16::gemm_bf16 on `kernel`, or gemm() for `via_gemm`) on random fp32
// inputs and compares the checked rows (every row_step-th and the last)
// with a double-precision product of the bf16-rounded inputs. A k-term fp32 accumulation is off by
// at most gamma_k = k u / (1 - k u) of sum |a||b| (recursive summation), plus the rounding of the
// alpha / beta step; so that is the tolerance. Returns the largest error seen relative to it.
double check_bf16_gemm(Bf16Kernel kernel, bool ta, bool tb, Shape s, float alpha, float beta, int pad, int row_step,
                       uint32_t seed, bool via_gemm) {
  const int lda = (ta ? s.m : s.k) + pad, ldb = (tb ? s.k : s.n) + pad, ldc = s.n + pad;
  const std::vector<float> a = random_matrix(static_cast<size_t>(ta ? s.k : s.m) * lda, seed, false);
  const std::vector<float> b = random_matrix(static_cast<size_t>(tb ? s.n : s.k) * ldb, seed + 1, false);
  std::vector<float> c = random_matrix(static_cast<size_t>(s.m) * ldc, seed + 2, false);
  if (beta == 0.f) {
    for (float& x : c) x = std::numeric_limits<float>::quiet_NaN();  // beta = 0 must not read c
  }
  const std::vector<float> c0 = c;
  if (via_gemm) {
    gemm(ta, tb, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  } else {
    bf16::gemm_bf16(kernel, ta, tb, s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  }
  // op(b) rounded, column j at bt[j * k].
  std::vector<double> bt(static_cast<size_t>(s.n) * s.k), arow(s.k);
  for (int j = 0; j < s.n; ++j) {
    for (int kk = 0; kk < s.k; ++kk)
      bt[static_cast<size_t>(j) * s.k + kk] = bf16_to_float(round_to_bf16(tb ? b[j * ldb + kk] : b[kk * ldb + j]));
  }
  std::vector<int> rows;
  for (int i = 0; i < s.m; i += row_step) rows.push_back(i);
  if (rows.back() != s.m - 1) rows.push_back(s.m - 1);
  const double gamma = (s.k + 2) * kU / (1 - (s.k + 2) * kU);
  double worst = 0.0;
  long bad = 0, padding_changed = 0;
  for (int i : rows) {
    for (int kk = 0; kk < s.k; ++kk) arow[kk] = bf16_to_float(round_to_bf16(ta ? a[kk * lda + i] : a[i * lda + kk]));
    for (int j = 0; j < s.n; ++j) {
      const double* bj = bt.data() + static_cast<size_t>(j) * s.k;
      double sum = 0.0, mag = 0.0;
      for (int kk = 0; kk < s.k; ++kk) {
        sum += arow[kk] * bj[kk];
        mag += std::fabs(arow[kk] * bj[kk]);
      }
      const double old = beta == 0.f ? 0.0 : c0[i * ldc + j];
      const double want = alpha * sum + beta * old;
      const double tol = gamma * (std::fabs(alpha) * mag + std::fabs(beta * old)) + 1e-30;
      const double err = std::fabs(c[i * ldc + j] - want);
      bad += !(err <= tol);
      worst = std::max(worst, err / tol);
    }
    for (int j = s.n; j < ldc; ++j)
      padding_changed += std::bit_cast<uint32_t>(c[i * ldc + j]) != std::bit_cast<uint32_t>(c0[i * ldc + j]);
  }
  CHECK(bad == 0);
  CHECK(padding_changed == 0);
  return worst;
}

// Selects a backend for one test case and puts fp32 back afterwards.
struct BackendScope {
  explicit BackendScope(GemmBackend b) { set_gemm_backend(b); }
  ~BackendScope() { set_gemm_backend(GemmBackend::kFp32); }
};

// The bf16 kernels this CPU can run: the AVX-512 one wherever there is any (every AMX CPU has
// AVX512-BF16), and AMX where it exists.
std::vector<Bf16Kernel> runnable_kernels() {
  std::vector<Bf16Kernel> kernels;
  for (Bf16Kernel k : {Bf16Kernel::kAvx512, Bf16Kernel::kAmx}) {
    if (static_cast<int>(bf16_kernel()) >= static_cast<int>(k)) kernels.push_back(k);
  }
  if (kernels.empty()) MESSAGE("this CPU or kernel has neither AVX512-BF16 nor AMX: the bf16 products are skipped");
  return kernels;
}

TEST_CASE("--gemm values resolve; bf16 is refused without bf16 instructions") {
  GemmBackend b = GemmBackend::kBf16;
  std::string err;
  CHECK(resolve_gemm_backend("fp32", &b, &err));
  CHECK(b == GemmBackend::kFp32);
  CHECK(resolve_gemm_backend("auto", &b, &err));
  CHECK(b == (bf16_available() ? GemmBackend::kBf16 : GemmBackend::kFp32));
  CHECK(resolve_gemm_backend("bf16", &b, &err) == bf16_available());
  if (!bf16_available()) {
    CHECK(err.find("AVX512-BF16") != std::string::npos);
    CHECK_THROWS_AS(set_gemm_backend(GemmBackend::kBf16), std::invalid_argument);
  }
  CHECK_FALSE(resolve_gemm_backend("fp16", &b, &err));
  CHECK(err.find("fp16") != std::string::npos);
  CHECK(gemm_backend() == GemmBackend::kFp32);  // the default
  MESSAGE("bf16 kernel here: " << std::string(bf16_kernel_name(bf16_kernel())));
}

TEST_CASE("bf16 GEMM (AVX512-BF16 and AMX) matches a double product of the rounded inputs") {
  for (Bf16Kernel kernel : runnable_kernels()) {
    const std::string kernel_name = bf16_kernel_name(kernel);
    CAPTURE(kernel_name);
    openblas_set_num_threads(1);
    double worst = 0.0;
    uint32_t seed = 1;
    const int sizes[] = {1, 9, 17, 33, 257};
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (int m : sizes) {
          for (int n : sizes) {
            for (int k : sizes) {
              CAPTURE(ta);
              CAPTURE(tb);
              CAPTURE(m);
              CAPTURE(n);
              CAPTURE(k);
              const float alpha = (seed % 3 == 0) ? 1.f : (seed % 3 == 1 ? -0.75f : 0.125f);
              const float beta = (seed % 4 == 0) ? 0.f : (seed % 4 == 1 ? 1.f : (seed % 4 == 2 ? -0.5f : 2.f));
              worst = std::max(worst, check_bf16_gemm(kernel, ta, tb, {m, n, k}, alpha, beta, seed % 2 ? 5 : 0, 1,
                                                      seed, false));
              ++seed;
            }
          }
        }
      }
    }
    MESSAGE(std::string(bf16_kernel_name(kernel)) << ": largest error seen: " << worst << " of the fp32 accumulation bound");
  }
  if (!bf16_available()) return;
  // The trainer's shapes (general preset, 4,000-token batches), through gemm() on this CPU's best
  // kernel: linear forward, output projection, weight gradients; every 97th row (and the last) checked.
  const BackendScope scope(GemmBackend::kBf16);
  const struct {
    bool ta, tb;
    Shape s;
  } real[] = {{false, true, {4000, 256, 256}}, {false, false, {4000, 256, 256}}, {true, false, {256, 256, 4000}},
              {false, true, {4000, 8000, 256}}, {false, false, {4000, 256, 8000}}, {true, false, {8000, 256, 4000}}};
  uint32_t seed = 1000;
  for (const auto& r : real) {
    CAPTURE(r.ta);
    CAPTURE(r.tb);
    CAPTURE(r.s.m);
    CAPTURE(r.s.n);
    CAPTURE(r.s.k);
    check_bf16_gemm(bf16_kernel(), r.ta, r.tb, r.s, 1.f, r.ta ? 1.f : 0.f, 0, 97, seed++, true);
  }
}

TEST_CASE("bf16 GEMM gives the same bits on 1 and 2 threads") {
  for (Bf16Kernel kernel : runnable_kernels()) {
    const std::string kernel_name = bf16_kernel_name(kernel);
    CAPTURE(kernel_name);
    for (const Shape s : {Shape{1000, 700, 300}, Shape{40, 2000, 600}}) {
      const std::vector<float> a = random_matrix(static_cast<size_t>(s.m) * s.k, 7, false);
      const std::vector<float> b = random_matrix(static_cast<size_t>(s.k) * s.n, 8, false);
      std::vector<float> c1(static_cast<size_t>(s.m) * s.n), c2(c1.size());
      openblas_set_num_threads(1);
      bf16::gemm_bf16(kernel, false, false, s.m, s.n, s.k, 1.f, a.data(), s.k, b.data(), s.n, 0.f, c1.data(), s.n);
      openblas_set_num_threads(2);
      bf16::gemm_bf16(kernel, false, false, s.m, s.n, s.k, 1.f, a.data(), s.k, b.data(), s.n, 0.f, c2.data(), s.n);
      openblas_set_num_threads(1);
      CHECK(std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("the fp32 backend, and the bf16 backend's small products, are cblas_sgemm for every transpose") {
  const int m = 5, n = 6, k = 7;  // far below the bf16 threshold, like the attention of short sentences
  const std::vector<float> a = random_matrix(m * k, 11, false), b = random_matrix(k * n, 12, false);
  for (int backend = 0; backend < (bf16_available() ? 2 : 1); ++backend) {
    const BackendScope scope(backend ? GemmBackend::kBf16 : GemmBackend::kFp32);
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        std::vector<float> c = random_matrix(m * n, 13, false), want = c;
        gemm(ta, tb, m, n, k, 0.5f, a.data(), ta ? m : k, b.data(), tb ? k : n, 2.f, c.data(), n);
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, 0.5f,
                    a.data(), ta ? m : k, b.data(), tb ? k : n, 2.f, want.data(), n);
        CHECK(c == want);
      }
    }
  }
}

}  // namespace
}  // namespace pmt::train
