#include "mapped_pages.h"

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace pmt::rt {
namespace {

size_t resident_pages(void* p, size_t bytes, size_t page) {
  std::vector<unsigned char> in_core(bytes / page);
  REQUIRE(::mincore(p, bytes, in_core.data()) == 0);
  size_t n = 0;
  for (unsigned char c : in_core) n += c & 1;
  return n;
}

#ifdef MADV_POPULATE_WRITE
// Whether this environment honours MADV_POPULATE_WRITE: Linux before 5.14 refuses it, and
// qemu-user (the ARM test runs) accepts it and does nothing.
bool populate_honoured(size_t page) {
  void* probe = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(probe != MAP_FAILED);
  const bool honoured = ::madvise(probe, page, MADV_POPULATE_WRITE) == 0 && resident_pages(probe, page, page) == 1;
  ::munmap(probe, page);
  return honoured;
}

TEST_CASE("populate_pages makes whole pages resident and keeps their contents") {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE)), bytes = 64 * page;
  const bool honoured = populate_honoured(page);
  if (!honoured) MESSAGE("MADV_POPULATE_WRITE is not honoured here: residency not checked, contents are");
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  auto* p = static_cast<unsigned char*>(map);
  std::memset(p + 5 * page, 0xAB, page);
  CHECK(resident_pages(p, bytes, page) == 1);
  // From the middle of page 1 to the middle of page 40: pages 2..39 lie wholly inside.
  populate_pages(p + page + page / 2, 39 * page);
  if (honoured) CHECK(resident_pages(p, bytes, page) == 38);
  CHECK(p[5 * page] == 0xAB);
  CHECK(p[6 * page - 1] == 0xAB);
  CHECK(p[7 * page] == 0);
  ::munmap(map, bytes);
}
#endif

}  // namespace
}  // namespace pmt::rt
