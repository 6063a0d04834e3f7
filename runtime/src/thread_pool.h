// The threads of one Translator: a pthreadpool shared by its XNNPACK operators and by the
// runtime's own per-row work (attention), or none at all when running on the caller's thread.
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

namespace pmt::rt {

// CPUs this process may run on (its affinity mask, which containers and taskset narrow), >= 1.
int32_t available_cpus();

class ThreadPool {
 public:
  // threads <= 1: everything runs on the calling thread (no pool, no worker threads).
  // yield_workers: workers sleep as soon as a job is done instead of spinning for the next one
  // (pthreadpool's default), for callers whose jobs alternate with other threaded work (the
  // trainer's element-wise ops between OpenBLAS GEMMs).
  // start_now = false leaves the workers to start(): pthreadpool's new workers spin for several
  // milliseconds waiting for their first job, which a caller busy with other threads (a load)
  // can defer.
  explicit ThreadPool(int32_t threads, bool yield_workers = false, bool start_now = true);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Creates the worker threads if not yet done; false when they could not be.
  bool start();
  // False when the worker threads could not be created (or are not started yet).
  bool ok() const { return threads_ <= 1 || pool_ != nullptr; }
  // What XNNPACK's setup and run functions take (nullptr: the calling thread).
  pthreadpool_t get() const { return pool_; }
  size_t threads() const { return threads_ < 1 ? 1 : static_cast<size_t>(threads_); }

  // Splits [0, n) into at most threads() contiguous chunks and calls fn(chunk, begin, end) for
  // each, in parallel. Chunk indices are distinct and < threads(), so a chunk may use scratch
  // memory of its own indexed by it. Blocks until every chunk is done. No allocation.
  template <class Fn>
  void for_chunks(size_t n, Fn& fn) const {
    if (n == 0) return;
    const size_t tile = (n + threads() - 1) / threads();
    if (pool_ == nullptr || n <= tile) {
      fn(size_t{0}, size_t{0}, n);
      return;
    }
    struct Context { Fn* fn; size_t tile; };
    Context ctx{&fn, tile};
    pthreadpool_parallelize_1d_tile_1d(
        pool_,
        [](void* c, size_t begin, size_t count) {
          auto* context = static_cast<Context*>(c);
          (*context->fn)(begin / context->tile, begin, begin + count);
        },
        &ctx, n, tile, flags_);
  }

 private:
  int32_t threads_;
  uint32_t flags_;
  pthreadpool_t pool_ = nullptr;
};

}  // namespace pmt::rt
