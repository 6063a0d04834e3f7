#include "kernels/crc32.h"

#include <doctest/doctest.h>
#include <zlib.h>

#include <random>
#include <vector>

namespace pmt::kernels {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(gen());
  return v;
}

TEST_CASE("crc32_ref gives the CRC-32 check value") {
  const char text[] = "123456789";
  CHECK(crc32_ref(text, 9, 0) == 0xCBF43926u);
  CHECK(crc32_ref(text + 5, 4, crc32_ref(text, 5, 0)) == 0xCBF43926u);
}

// Every length from 0 to 300 (below, at and above the 64-byte fold, 16-byte steps and their
// tails), at every alignment of a 16-byte load, continuing from several CRCs; and lengths of
// whole megabytes. The folded path must equal the bitwise reference and zlib exactly.
TEST_CASE("crc32 equals the bitwise reference and zlib on every length, alignment and start") {
  const std::vector<uint8_t> bytes = random_bytes(300 + 16, 7);
  for (uint32_t start : {0u, 1u, 0xCBF43926u, 0xFFFFFFFFu})
    for (size_t offset = 0; offset < 16; ++offset)
      for (size_t n = 0; n <= 300; ++n) {
        const uint8_t* p = bytes.data() + offset;
        const uint32_t want = crc32_ref(p, n, start);
        if (crc32(p, n, start) != want || (n > 0 && crc32_z(start, p, n) != want)) {
          INFO("start " << start << " offset " << offset << " length " << n);
          CHECK(crc32(p, n, start) == want);
          CHECK(crc32_z(start, p, n) == want);
          return;
        }
      }
  const std::vector<uint8_t> big = random_bytes(3 << 20, 11);
  for (size_t n : {size_t{1} << 20, (size_t{3} << 20) - 5}) CHECK(crc32(big.data(), n, 0) == crc32_ref(big.data(), n, 0));
  // Split anywhere, the CRC of the parts chains to that of the whole.
  CHECK(crc32(big.data() + 1000, big.size() - 1000, crc32(big.data(), 1000, 0)) == crc32(big.data(), big.size(), 0));
}

}  // namespace
}  // namespace pmt::kernels
