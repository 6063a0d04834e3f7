#include "mapped_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace pmt::rt {

void release_mapped_pages(const void* data, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  // Only a hint: if the kernel declines, the pages simply stay resident.
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace pmt::rt
