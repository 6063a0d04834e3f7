#include "train/ops/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "kernels/simd.h"  // runtime/src: PMT_MULTIVERSION
#include "thread_pool.h"   // runtime/src
#include "train/ops/gemm_bf16.h"

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace pmt::train {

namespace bf16 {

// Every tile is packed in two steps: the valid part of op(x) is rounded into `block` along the
// source's contiguous direction (plain loops the compiler vectorizes), then rearranged into the
// tile by a fixed-size loop; only edge tiles pay for zeroing. Multiversioned: the AVX-512 / AVX2
// clones run where the CPU has them, and the baseline clone is what the tests check the layout
// with on any CPU.
namespace {

// Rounds a rows x cols block of x (row stride ld) into block[r * kKBlock + c], rows <= 32, cols <= 32.
PMT_INLINE void round_block(uint16_t* block, const float* x, long ld, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* src = x + r * ld;
    for (int c = 0; c < cols; ++c) block[r * kKBlock + c] = round_to_bf16(src[c]);
  }
}

// Calls tile(panel, k0) for every tile of the panels [begin, end). A source stored k-major (rows
// along the panels) is walked k block by k block, across all panels: row by row, where panel by
// panel would jump a whole row per 64 bytes read and miss the TLB on every jump.
template <typename F>
PMT_INLINE void for_tiles(bool k_major, int begin, int end, int kp, F&& tile) {
  if (k_major) {
    for (int k0 = 0; k0 < kp; k0 += kKBlock) {
      for (int p = begin; p < end; ++p) tile(p, k0);
    }
  } else {
    for (int p = begin; p < end; ++p) {
      for (int k0 = 0; k0 < kp; k0 += kKBlock) tile(p, k0);
    }
  }
}

}  // namespace

PMT_MULTIVERSION
void pack_a(uint16_t* dst, const float* a, int lda, bool trans, int m, int k, int panel_begin, int panel_end) {
  const int kp = round_up(k, kKBlock);
  alignas(64) uint16_t block[kKBlock * kKBlock];
  auto pack_tile = [&](int p, int k0) {
    const int i0 = p * kTileRows, rows = std::min(kTileRows, m - i0), depth = std::min(kKBlock, k - k0);
    uint16_t* tile = dst + static_cast<size_t>(p) * kTileRows * kp + static_cast<size_t>(k0) * kTileRows;
    const bool edge = rows < kTileRows || depth < kKBlock;
    if (!trans) {  // rows of op(a) are contiguous: round straight into the tile
      if (edge) std::memset(tile, 0, kTileElems * sizeof(uint16_t));
      round_block(tile, a + static_cast<long>(i0) * lda + k0, lda, rows, depth);
      return;
    }
    // Columns of op(a) are contiguous: block[t][r], then transposed into tile[r][t].
    if (edge) std::memset(block, 0, sizeof block);
    round_block(block, a + static_cast<long>(k0) * lda + i0, lda, depth, rows);
    for (int r = 0; r < kTileRows; ++r) {
      for (int t = 0; t < kKBlock; ++t) tile[r * kKBlock + t] = block[t * kKBlock + r];
    }
  };
  for_tiles(trans, panel_begin, panel_end, kp, pack_tile);
}

PMT_MULTIVERSION
void pack_b(uint16_t* dst, const float* b, int ldb, bool trans, int k, int n, int panel_begin, int panel_end) {
  const int kp = round_up(k, kKBlock);
  alignas(64) uint16_t block[kKBlock * kKBlock];
  auto pack_tile = [&](int q, int k0) {
    const int j0 = q * kTileRows, cols = std::min(kTileRows, n - j0), depth = std::min(kKBlock, k - k0);
    uint16_t* tile = dst + static_cast<size_t>(q) * kTileRows * kp + static_cast<size_t>(k0) * kTileRows;
    if (cols < kTileRows || depth < kKBlock) std::memset(block, 0, sizeof block);
    // tile[t / 2][jj][t % 2] = op(b)(k0 + t, j0 + jj): each (t even, t + 1) pair is one 32-bit word,
    // read from block[t][jj] and block[t + 1][jj], or from the word at block[jj][t].
    uint32_t* words = reinterpret_cast<uint32_t*>(tile);
    if (!trans) {
      round_block(block, b + static_cast<long>(k0) * ldb + j0, ldb, depth, cols);
      for (int p = 0; p < kKBlock / 2; ++p) {
        const uint16_t* lo = block + 2 * p * kKBlock;
        for (int jj = 0; jj < kTileRows; ++jj) {
          words[p * kTileRows + jj] = lo[jj] | static_cast<uint32_t>(lo[kKBlock + jj]) << 16;
        }
      }
    } else {
      round_block(block, b + static_cast<long>(j0) * ldb + k0, ldb, cols, depth);
      for (int p = 0; p < kKBlock / 2; ++p) {
        for (int jj = 0; jj < kTileRows; ++jj) {
          words[p * kTileRows + jj] = block[jj * kKBlock + 2 * p] | static_cast<uint32_t>(block[jj * kKBlock + 2 * p + 1]) << 16;
        }
      }
    }
  };
  for_tiles(!trans, panel_begin, panel_end, kp, pack_tile);
}

}  // namespace bf16

namespace {

std::atomic<GemmBackend> g_backend{GemmBackend::kFp32};

#if defined(__x86_64__) && defined(__linux__)
// XCR0: the state the OS saves on a context switch.
uint64_t xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return lo | static_cast<uint64_t>(hi) << 32;
}

// Both kernels need OSXSAVE (checked by the caller) and their XCR0 state.
bool detect_avx512_bf16() {
  if (!bf16::avx512_kernel_built()) return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(ebx & (1u << 16))) return false;  // AVX512F
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) || !(eax & (1u << 5))) return false;   // AVX512_BF16
  return (xcr0() & 0xE6) == 0xE6;  // SSE, AVX, opmask and both ZMM halves saved
}

bool detect_amx_bf16() {
  if (!bf16::amx_kernel_built()) return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  if (!(edx & (1u << 22)) || !(edx & (1u << 24))) return false;  // AMX-BF16, AMX-TILE
  if ((xcr0() & (3u << 17)) != (3u << 17)) return false;          // XTILECFG and XTILEDATA state enabled
  // Linux hands out the 8 KiB tile state only on request (ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
  // without it the first tile instruction kills the process.
  constexpr int kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}
#endif

Bf16Kernel detect_bf16_kernel() {
#if defined(__x86_64__) && defined(__linux__)
  // Every AMX CPU has AVX512-BF16 too; the AVX-512 kernel is the one the tests can run on both.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return Bf16Kernel::kNone;  // OSXSAVE
  if (!detect_avx512_bf16()) return Bf16Kernel::kNone;
  return detect_amx_bf16() ? Bf16Kernel::kAmx : Bf16Kernel::kAvx512;
#else
  return Bf16Kernel::kNone;
#endif
}

// Products below this many multiply-adds run on OpenBLAS in fp32 whatever the backend: packing
// them costs more than the tiles save (the attention's per-head products of short sentences).
constexpr long kBf16MinMacs = 1L << 18;

// Products below this many multiply-adds stay on the calling thread: waking a worker costs more
// (and the attention's small products already run on the model's threads).
constexpr long kParallelMacs = 1L << 22;

const rt::ThreadPool& gemm_pool() {
  static const rt::ThreadPool pool(std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 64),
                                   /*yield_workers=*/true);
  return pool;
}

// A calling thread's packed operands: grown to the largest product seen, never shrunk, so the
// training loop stops allocating after its first step. 64-byte aligned for the tile loads.
class PackBuffer {
 public:
  PackBuffer() = default;
  PackBuffer(const PackBuffer&) = delete;
  PackBuffer& operator=(const PackBuffer&) = delete;
  ~PackBuffer() { std::free(data_); }
  uint16_t* reserve(size_t elems) {
    if (elems > capacity_) {
      std::free(data_);
      const size_t bytes = (elems * sizeof(uint16_t) + 63) / 64 * 64;
      data_ = static_cast<uint16_t*>(std::aligned_alloc(64, bytes));
      if (!data_) throw std::bad_alloc();
      capacity_ = elems;
    }
    return data_;
  }

 private:
  uint16_t* data_ = nullptr;
  size_t capacity_ = 0;
};

thread_local PackBuffer t_packed_a, t_packed_b;

}  // namespace

void bf16::gemm_bf16(Bf16Kernel kernel, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                     int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  const auto multiply = kernel == Bf16Kernel::kAmx ? amx_multiply : avx512_multiply;
  const int kp = round_up(k, kKBlock), a_panels = panels(m), b_panels = panels(n);
  uint16_t* pa = t_packed_a.reserve(static_cast<size_t>(a_panels) * kTileRows * kp);
  uint16_t* pb = t_packed_b.reserve(static_cast<size_t>(b_panels) * kTileRows * kp);
  const long macs = static_cast<long>(m) * n * k;
  const int parts = macs < kParallelMacs ? 1
                                         : std::min({openblas_get_num_threads(),
                                                     static_cast<int>(gemm_pool().threads()), a_panels + b_panels});
  if (parts <= 1) {
    pack_a(pa, a, lda, trans_a, m, k, 0, a_panels);
    pack_b(pb, b, ldb, trans_b, k, n, 0, b_panels);
    multiply(pa, pb, kp, m, n, 0, a_panels, 0, b_panels, alpha, beta, c, ldc);
    return;
  }
  // Both operands packed by all threads, then the result split along its longer side (in pairs of
  // panels, the kernel's block) so each part reads half of one packed operand and all the other.
  auto pack = [&](size_t, size_t begin, size_t end) {
    for (size_t part = begin; part < end; ++part) {
      pack_a(pa, a, lda, trans_a, m, k, a_panels * part / parts, a_panels * (part + 1) / parts);
      pack_b(pb, b, ldb, trans_b, k, n, b_panels * part / parts, b_panels * (part + 1) / parts);
    }
  };
  gemm_pool().for_chunks(static_cast<size_t>(parts), pack);
  const bool split_rows = a_panels >= b_panels;
  const int pairs = ((split_rows ? a_panels : b_panels) + 1) / 2;
  auto multiply_parts = [&](size_t, size_t begin, size_t end) {
    for (size_t part = begin; part < end; ++part) {
      const int lo = static_cast<int>(2 * (pairs * part / parts));
      const int hi = std::min(static_cast<int>(2 * (pairs * (part + 1) / parts)), split_rows ? a_panels : b_panels);
      if (split_rows) {
        multiply(pa, pb, kp, m, n, lo, hi, 0, b_panels, alpha, beta, c, ldc);
      } else {
        multiply(pa, pb, kp, m, n, 0, a_panels, lo, hi, alpha, beta, c, ldc);
      }
    }
  };
  gemm_pool().for_chunks(static_cast<size_t>(parts), multiply_parts);
}

const char* gemm_backend_name(GemmBackend backend) { return backend == GemmBackend::kBf16 ? "bf16" : "fp32"; }

Bf16Kernel bf16_kernel() {
  static const Bf16Kernel kernel = detect_bf16_kernel();
  return kernel;
}

bool bf16_available() { return bf16_kernel() != Bf16Kernel::kNone; }

const char* bf16_kernel_name(Bf16Kernel kernel) {
  switch (kernel) {
    case Bf16Kernel::kAmx: return "AMX";
    case Bf16Kernel::kAvx512: return "AVX512-BF16";
    case Bf16Kernel::kNone: break;
  }
  return "none";
}

bool resolve_gemm_backend(const std::string& name, GemmBackend* out, std::string* error) {
  if (name == "fp32" || (name == "auto" && !bf16_available())) {
    *out = GemmBackend::kFp32;
  } else if (name == "bf16" || name == "auto") {
    if (!bf16_available()) {
      *error = "--gemm bf16 needs Intel AMX or AVX512-BF16 (Cooper Lake, Sapphire Rapids, AMD Zen 4 or later, "
               "Linux); this CPU or kernel has neither: use --gemm fp32 or auto";
      return false;
    }
    *out = GemmBackend::kBf16;
  } else {
    *error = "--gemm must be fp32, bf16 or auto, got '" + name + "'";
    return false;
  }
  return true;
}

void set_gemm_backend(GemmBackend backend) {
  if (backend == GemmBackend::kBf16 && !bf16_available())
    throw std::invalid_argument("the bf16 GEMM needs AMX or AVX512-BF16, which this CPU or kernel lacks");
  g_backend.store(backend, std::memory_order_relaxed);
}

GemmBackend gemm_backend() { return g_backend.load(std::memory_order_relaxed); }

void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc) {
  if (m <= 0 || n <= 0) return;
  if (gemm_backend() == GemmBackend::kBf16 && static_cast<long>(m) * n * k >= kBf16MinMacs) {
    bf16::gemm_bf16(bf16_kernel(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha,
              a, lda, b, ldb, beta, c, ldc);
}

}  // namespace pmt::train
