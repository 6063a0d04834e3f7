// The trainer's one GEMM: every matrix product of the model (linear layers, output projection,
// attention) goes through gemm(), which runs on the backend chosen for the process.
//   kFp32: OpenBLAS cblas_sgemm, the portable default.
//   kBf16: the inputs are rounded to bfloat16 (round to nearest even), the products accumulated
//   in fp32 and alpha/beta applied in fp32; weights, gradients and every other op stay fp32 (fp32
//   master weights). Runs on Intel AMX tiles where the CPU has them (Sapphire Rapids on; about 20x
//   the fp32 AVX-512 peak per core), else on AVX512-BF16's VDPBF16PS (Cooper Lake, AMD Zen 4 on;
//   twice the multiply-adds of an fp32 FMA per instruction), at bfloat16's 8-bit mantissa on the
//   inputs of each product.
// Large products are split over as many threads as OpenBLAS is set to use
// (openblas_set_num_threads), the trainer's one thread knob.
#pragma once

#include <string>

namespace pmt::train {

enum class GemmBackend { kFp32, kBf16 };

// "fp32" | "bf16".
const char* gemm_backend_name(GemmBackend backend);
// The instructions the bf16 backend runs on, best first; checked once per process.
//   kAmx: CPUID reports AMX-TILE and AMX-BF16, the OS enables their state (XCR0) and grants this
//   process the tile data permission (arch_prctl ARCH_REQ_XCOMP_PERM).
//   kAvx512: CPUID reports AVX512F and AVX512_BF16 and the OS saves the ZMM state (XCR0).
enum class Bf16Kernel { kNone, kAvx512, kAmx };
Bf16Kernel bf16_kernel();
bool bf16_available();               // bf16_kernel() != kNone
const char* bf16_kernel_name(Bf16Kernel kernel);  // "none" | "AVX512-BF16" | "AMX"
// Resolves a --gemm value: "fp32", "bf16" (false without bf16 instructions: *error says why) or
// "auto" (bf16 where the CPU has bf16 instructions, else fp32). False with *error set for anything else.
bool resolve_gemm_backend(const std::string& name, GemmBackend* out, std::string* error);

// Process-wide, like OpenBLAS's thread count; kFp32 until set. Setting kBf16 on a CPU without
// bf16 instructions throws std::invalid_argument. Not to be changed while another thread is in gemm().
void set_gemm_backend(GemmBackend backend);
GemmBackend gemm_backend();

// Row-major cblas_sgemm: c[m, n] = alpha * op(a)[m, k] * op(b)[k, n] + beta * c, where op(a) is a
// (lda >= k) or, with trans_a, the transpose of a stored [k, m] (lda >= m); likewise b.
// beta = 0 never reads c. Thread-safe: concurrent calls (the attention's per-thread products)
// each use their calling thread's packing buffers.
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc);

}  // namespace pmt::train
