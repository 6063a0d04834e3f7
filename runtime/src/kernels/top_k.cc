#include "kernels/top_k.h"

#include "kernels/simd.h"

namespace pmt::kernels {
namespace {

// The running top k of the entries seen so far, best first, kept in the caller's idx/val.
struct Selection {
  size_t k;
  int32_t* idx;
  float* val;
  size_t filled = 0;

  // Inserts entry i if it beats the current k-th best. Strict comparisons keep earlier indices
  // ahead of later equal values.
  PMT_INLINE void offer(float x, size_t i) {
    if (filled == k && !(x > val[k - 1])) return;
    size_t pos = filled < k ? filled++ : k - 1;
    for (; pos > 0 && x > val[pos - 1]; --pos) {
      val[pos] = val[pos - 1];
      idx[pos] = idx[pos - 1];
    }
    val[pos] = x;
    idx[pos] = static_cast<int32_t>(i);
  }
};

PMT_INLINE void select(const float* x, size_t n, Selection& s) {
  size_t i = 0;
  for (; i < n && s.filled < s.k; ++i) s.offer(x[i], i);
  for (; i + simd::kLanes <= n; i += simd::kLanes) {
    // Skips whole blocks: after the first few hundred entries almost none enter the top k.
    if (!simd::any(simd::load(x + i) > s.val[s.k - 1])) continue;
    for (size_t l = 0; l < simd::kLanes; ++l) s.offer(x[i + l], i + l);
  }
  for (; i < n; ++i) s.offer(x[i], i);
}

}  // namespace

PMT_MULTIVERSION
size_t PMT_KERNEL(argmax)(const float* x, size_t n) {
  int32_t idx;
  float val;
  Selection s{1, &idx, &val};
  select(x, n, s);
  return static_cast<size_t>(idx);
}

PMT_MULTIVERSION
void PMT_KERNEL(top_k)(const float* x, size_t n, size_t k, int32_t* idx, float* val) {
  Selection s{k, idx, val};
  select(x, n, s);
}

#if !defined(PMT_NEON_COPY)  // the references and the rest are compiled once
namespace {
// Reference order: (value, index) a comes before b.
bool before(float a, size_t ia, float b, size_t ib) { return a > b || (a == b && ia < ib); }
}  // namespace

size_t argmax_ref(const float* x, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

// Pass r picks the best entry that comes after pass r-1's pick in the (value desc, index asc)
// order.
void top_k_ref(const float* x, size_t n, size_t k, int32_t* idx, float* val) {
  for (size_t r = 0; r < k; ++r) {
    size_t best = n;
    for (size_t i = 0; i < n; ++i) {
      if (r > 0 && !before(val[r - 1], static_cast<size_t>(idx[r - 1]), x[i], i)) continue;
      if (best == n || before(x[i], i, x[best], best)) best = i;
    }
    idx[r] = static_cast<int32_t>(best);
    val[r] = x[best];
  }
}
#endif

}  // namespace pmt::kernels
