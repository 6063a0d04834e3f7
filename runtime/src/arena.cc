#include "arena.h"

#include <sys/mman.h>

#include <xnnpack.h>

namespace pmt::rt {

namespace {
constexpr size_t kAlignment = 64;  // a cache line; XNNPACK's widest vector loads need 64 at most
constexpr size_t round_up(size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }
}  // namespace

std::byte* ArenaLayout::reserve(size_t bytes) {
  std::byte* p = base_ == nullptr ? nullptr : base_ + offset_;
  offset_ += round_up(bytes + XNN_EXTRA_BYTES);
  return p;
}

Arena::~Arena() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

bool Arena::allocate(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  data_ = static_cast<std::byte*>(p);
  size_ = bytes;
  return true;
}

}  // namespace pmt::rt
