#include "mapped_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace pmt::rt {
namespace {

// Only a hint: if the kernel declines, the pages stay as they are.
void advise_whole_pages(const void* data, size_t bytes, int advice) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

}  // namespace

void release_mapped_pages(const void* data, size_t bytes) { advise_whole_pages(data, bytes, MADV_DONTNEED); }

void populate_pages([[maybe_unused]] void* data, [[maybe_unused]] size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  advise_whole_pages(data, bytes, MADV_POPULATE_WRITE);
#endif
}

}  // namespace pmt::rt
