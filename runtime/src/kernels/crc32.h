// CRC-32 (IEEE 802.3: zlib's crc32, reflected polynomial 0xEDB88320), which the model file's
// checksum uses. Load reads every byte of the file through it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::kernels {

// The CRC of n bytes continuing from `crc` (0 to start), as zlib's crc32_z. On x86-64 CPUs with
// PCLMULQDQ the bulk is folded 64 bytes at a time with carry-less multiplies (Gopal et al.,
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction", Intel 2009):
// the checksum of the 9.4 MB general model took 3.7 ms of a 24 ms load with zlib 1.2.13's
// table-driven loop, 1.5 ms so (page faults included). Elsewhere, and for the tail, zlib.
uint32_t crc32(const void* data, size_t n, uint32_t crc);

// Plain reference: one bit at a time.
uint32_t crc32_ref(const void* data, size_t n, uint32_t crc);

}  // namespace pmt::kernels
