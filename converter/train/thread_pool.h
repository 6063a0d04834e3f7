// A fixed set of worker threads that split loops of the trainer's element-wise and attention ops
// across cores. The threads are started once, so parallel_for never allocates; between jobs
// they sleep on a condition variable.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace pmt::train {

class ThreadPool {
 public:
  // max_threads counts the calling thread: max_threads - 1 workers are started.
  explicit ThreadPool(int max_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int max_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end, part) on `parts` contiguous, near-equal slices of [0, n), part in
  // [0, parts), and returns when all are done. parts is clamped to [1, max_threads()] and n;
  // the caller runs part 0 itself.
  template <typename F>
  void parallel_for(long n, int parts, F&& fn) {
    using Fn = std::remove_reference_t<F>;
    run(n, parts, [](void* f, long begin, long end, int part) { (*static_cast<Fn*>(f))(begin, end, part); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using Job = void (*)(void* fn, long begin, long end, int part);
  void run(long n, int parts, Job job, void* fn);
  void worker(int index);
  static long slice_begin(long n, int parts, int part) { return n * part / parts; }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;  // bumped for every job
  bool stop_ = false;
  // The current job.
  Job job_ = nullptr;
  void* fn_ = nullptr;
  long n_ = 0;
  int parts_ = 0;
  int pending_ = 0;  // workers still running their part
};

}  // namespace pmt::train
