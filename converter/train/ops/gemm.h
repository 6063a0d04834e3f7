// The trainer's one GEMM: every matrix product of the model (linear layers, output projection,
// attention) goes through gemm(), which runs on the backend chosen for the process.
//   kFp32: OpenBLAS cblas_sgemm, the portable default.
//   kBf16Amx: Intel AMX tiles. The inputs are rounded to bfloat16 (round to nearest even), the
//   products accumulated in fp32 and alpha/beta applied in fp32; weights, gradients and every
//   other op stay fp32 (fp32 master weights). About 20x the fp32 AVX-512 peak per core, at
//   bfloat16's 8-bit mantissa on the inputs of each product.
// Large products are split over as many threads as OpenBLAS is set to use
// (openblas_set_num_threads), the trainer's one thread knob.
#pragma once

#include <string>

namespace pmt::train {

enum class GemmBackend { kFp32, kBf16Amx };

// "fp32" | "bf16".
const char* gemm_backend_name(GemmBackend backend);
// CPUID reports AMX-TILE and AMX-BF16, the OS enables their state (XCR0) and grants this process
// the tile data permission (arch_prctl ARCH_REQ_XCOMP_PERM). Checked once.
bool amx_bf16_available();
// Resolves a --gemm value: "fp32", "bf16" (empty error when AMX is missing: *error says why) or
// "auto" (bf16 where AMX is available, else fp32). False with *error set for anything else.
bool resolve_gemm_backend(const std::string& name, GemmBackend* out, std::string* error);

// Process-wide, like OpenBLAS's thread count; kFp32 until set. Setting kBf16Amx on a CPU without
// AMX throws std::invalid_argument. Not to be changed while another thread is in gemm().
void set_gemm_backend(GemmBackend backend);
GemmBackend gemm_backend();

// Row-major cblas_sgemm: c[m, n] = alpha * op(a)[m, k] * op(b)[k, n] + beta * c, where op(a) is a
// (lda >= k) or, with trans_a, the transpose of a stored [k, m] (lda >= m); likewise b.
// beta = 0 never reads c. Thread-safe: concurrent calls (the attention's per-thread products)
// each use their calling thread's packing buffers.
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc);

}  // namespace pmt::train
