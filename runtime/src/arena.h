// The runtime's one working allocation. Buffers are carved from it in a fixed order by a layout
// function that runs twice: once on an ArenaLayout with no memory to measure the total, then on
// the allocated block to hand out the pointers. Nothing is allocated after that.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::rt {

// Hands out 64-byte aligned pieces of a block, each followed by at least XNN_EXTRA_BYTES of
// slack (XNNPACK's kernels may read, never write, up to that far past the end of an input).
class ArenaLayout {
 public:
  explicit ArenaLayout(std::byte* base = nullptr) : base_(base) {}

  // `count` elements of T; nullptr while measuring.
  template <class T>
  T* take(size_t count) {
    std::byte* p = reserve(count * sizeof(T));
    return reinterpret_cast<T*>(p);
  }
  size_t bytes() const { return offset_; }

 private:
  std::byte* reserve(size_t bytes);

  std::byte* base_;
  size_t offset_ = 0;
};

// Owns one anonymous mapping: zero-filled, and its pages take physical memory only once
// touched, so the limits chosen at load cost address space, not resident memory, until used.
class Arena {
 public:
  Arena() = default;
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Maps `bytes`; false when the system refuses.
  bool allocate(size_t bytes);
  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pmt::rt
