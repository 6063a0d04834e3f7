// 32-bit ARM only: the kernels' public names, each calling the NEON copy (name_neon) where the CPU
// has NEON and the baseline copy (name_vfp) elsewhere (see PMT_KERNEL in kernels/simd.h). The
// choice is made once per process from the kernel's HWCAP_NEON; PMT_NO_NEON=1 in the environment
// forces the baseline copy (the tests run both copies that way).
#if defined(__arm__) && !defined(__aarch64__)
#include <sys/auxv.h>

#include <cstdlib>
#include <cstring>

#include "kernels/attention.h"
#include "kernels/embedding.h"
#include "kernels/layer_norm.h"
#include "kernels/quantize.h"
#include "kernels/softmax.h"
#include "kernels/top_k.h"

namespace pmt::kernels {
namespace {

bool use_neon() {
  static const bool neon = [] {
    constexpr unsigned long kHwcapNeon = 1ul << 12;  // HWCAP_NEON of <asm/hwcap.h> on 32-bit ARM
    const char* off = std::getenv("PMT_NO_NEON");
    return (getauxval(AT_HWCAP) & kHwcapNeon) != 0 && !(off != nullptr && std::strcmp(off, "1") == 0);
  }();
  return neon;
}

}  // namespace

// Declares both copies of a kernel and defines its public name.
#define PMT_NEON_DISPATCH(ret, name, params, args) \
  ret name##_vfp params;                           \
  ret name##_neon params;                          \
  ret name params { return use_neon() ? name##_neon args : name##_vfp args; }

PMT_NEON_DISPATCH(void, attention,
                  (const float* q, size_t ld_q, const float* k, const float* v, size_t ld_kv, float* out,
                   size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads, size_t d_head, bool causal,
                   size_t q_offset, float* scratch),
                  (q, ld_q, k, v, ld_kv, out, ld_out, q_len, kv_len, n_heads, d_head, causal, q_offset, scratch))
PMT_NEON_DISPATCH(void, attention_bf16,
                  (const float* q, size_t ld_q, const uint16_t* k, const uint16_t* v, size_t ld_kv, float* out,
                   size_t ld_out, size_t q_len, size_t kv_len, size_t n_heads, size_t d_head, bool causal,
                   size_t q_offset, float* scratch),
                  (q, ld_q, k, v, ld_kv, out, ld_out, q_len, kv_len, n_heads, d_head, causal, q_offset, scratch))
PMT_NEON_DISPATCH(void, embed_f32,
                  (const float* table, const int32_t* ids, size_t n, size_t d, const float* pos_table, size_t pos0,
                   float* y),
                  (table, ids, n, d, pos_table, pos0, y))
PMT_NEON_DISPATCH(void, embed_qc8,
                  (const int8_t* table, const float* row_scales, const int32_t* ids, size_t n, size_t d,
                   const float* pos_table, size_t pos0, float* y),
                  (table, row_scales, ids, n, d, pos_table, pos0, y))
PMT_NEON_DISPATCH(void, row_logits_f32,
                  (const float* h, size_t rows, const float* table, const int32_t* ids, size_t n, size_t d,
                   float* out, size_t out_stride),
                  (h, rows, table, ids, n, d, out, out_stride))
PMT_NEON_DISPATCH(void, row_logits_qc8,
                  (const float* h, size_t rows, const int8_t* table, const float* row_scales, const int32_t* ids,
                   size_t n, size_t d, float* scratch, float* out, size_t out_stride),
                  (h, rows, table, row_scales, ids, n, d, scratch, out, out_stride))
PMT_NEON_DISPATCH(void, add_layer_norm,
                  (const float* x, const float* residual, const float* gamma, const float* beta, float* y,
                   size_t rows, size_t d, float eps),
                  (x, residual, gamma, beta, y, rows, d, eps))
PMT_NEON_DISPATCH(void, quantize_qs8, (const float* x, int8_t* y, size_t n, float scale, int32_t zero_point),
                  (x, y, n, scale, zero_point))
PMT_NEON_DISPATCH(void, dequantize_qs8, (const int8_t* x, float* y, size_t n, float scale, int32_t zero_point),
                  (x, y, n, scale, zero_point))
PMT_NEON_DISPATCH(void, dequantize_qs8_channels,
                  (const int8_t* x, const float* step, const float* offset, bool relu, float* y, size_t rows,
                   size_t cols),
                  (x, step, offset, relu, y, rows, cols))
PMT_NEON_DISPATCH(void, dequantize_row_qc8, (const int8_t* w, float scale, float* y, size_t n), (w, scale, y, n))
PMT_NEON_DISPATCH(void, softmax, (float* x, size_t n), (x, n))
PMT_NEON_DISPATCH(void, log_softmax, (const float* x, float* y, size_t n), (x, y, n))
PMT_NEON_DISPATCH(size_t, argmax, (const float* x, size_t n), (x, n))
PMT_NEON_DISPATCH(void, top_k, (const float* x, size_t n, size_t k, int32_t* idx, float* val),
                  (x, n, k, idx, val))

}  // namespace pmt::kernels
#endif
