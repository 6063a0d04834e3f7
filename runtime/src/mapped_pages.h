// Returning a read-only file mapping's pages to the page cache. After XNNPACK has packed a
// weight into its own memory, the mapped original is no longer read; dropping its pages from
// the process keeps the resident size at one copy of the weights instead of two.
#pragma once

#include <cstddef>

namespace pmt::rt {

// Releases the resident pages lying wholly inside [data, data + bytes) of a read-only
// MAP_PRIVATE file mapping; touching them later reads them from the file again. Never call it
// on anonymous or caller-owned memory: there it would discard the contents.
void release_mapped_pages(const void* data, size_t bytes);

}  // namespace pmt::rt
