#include "kernels/crc32.h"

#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace pmt::kernels {
namespace {

#if defined(__x86_64__)
#define PMT_CLMUL __attribute__((target("pclmul,sse4.1")))

// One fold: the 128-bit remainder `acc` moved forward by the distance that k encodes (low
// half: x^(d+32) mod P, high half: x^(d-32) mod P, bit-reflected) and added to the data there.
PMT_CLMUL inline __m128i fold(__m128i acc, __m128i k, __m128i data) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00), _mm_clmulepi64_si128(acc, k, 0x11)), data);
}

PMT_CLMUL inline __m128i load(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// The CRC register (not inverted) after n bytes, n >= 64 and a multiple of 16. The constants are
// the paper's for P = 0x104C11DB7 in the reflected domain.
PMT_CLMUL uint32_t crc32_clmul(const uint8_t* p, size_t n, uint32_t reg) {
  const __m128i k512 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);  // distance 4 x 128 bits
  const __m128i k128 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);  // distance 128 bits
  const __m128i k64 = _mm_set_epi64x(0, 0x163cd6124);              // x^64 mod P
  const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);  // high: x^64 / P, low: P
  const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
  // Four independent lanes hide the multiplies' latency.
  __m128i lane[4];
  for (int i = 0; i < 4; ++i) lane[i] = load(p + 16 * i);
  lane[0] = _mm_xor_si128(lane[0], _mm_cvtsi32_si128(static_cast<int>(reg)));
  for (p += 64, n -= 64; n >= 64; p += 64, n -= 64)
    for (int i = 0; i < 4; ++i) lane[i] = fold(lane[i], k512, load(p + 16 * i));
  __m128i acc = lane[0];
  for (int i = 1; i < 4; ++i) acc = fold(acc, k128, lane[i]);
  for (; n >= 16; p += 16, n -= 16) acc = fold(acc, k128, load(p));
  // 128 -> 64 -> 32 bits, then Barrett reduction modulo P.
  acc = _mm_xor_si128(_mm_clmulepi64_si128(acc, k128, 0x10), _mm_srli_si128(acc, 8));
  acc = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(acc, low32), k64, 0x00), _mm_srli_si128(acc, 4));
  __m128i q = _mm_clmulepi64_si128(_mm_and_si128(acc, low32), barrett, 0x10);
  q = _mm_clmulepi64_si128(_mm_and_si128(q, low32), barrett, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(acc, q), 1));
}

const bool kHasClmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#endif

}  // namespace

uint32_t crc32(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
#if defined(__x86_64__)
  if (kHasClmul && n >= 64) {
    const size_t bulk = n & ~size_t{15};
    crc = ~crc32_clmul(p, bulk, ~crc);
    p += bulk;
    n -= bulk;
  }
#endif
  // zlib returns 0 for a null buffer whatever `crc` is; an empty range must leave it unchanged.
  if (n == 0) return crc;
  return static_cast<uint32_t>(::crc32_z(crc, p, n));
}

uint32_t crc32_ref(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

}  // namespace pmt::kernels
