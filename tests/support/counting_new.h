// Replaces the global operator new/delete with versions that count allocations in
// pmt::test::g_allocations. Include it from exactly one .cc of a test executable: the
// replacement is program-wide.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace pmt::test {
inline std::atomic<long> g_allocations{0};
}  // namespace pmt::test

// Every unaligned form is replaced so that new and delete always pair malloc with free (the
// sanitizers check the pairing).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  pmt::test::g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size ? size : 1);
}
void* operator new(std::size_t size) {
  if (void* p = operator new(size, std::nothrow)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
