#include "train/thread_pool.h"

namespace pmt::train {

ThreadPool::ThreadPool(int max_threads) {
  for (int i = 1; i < max_threads; ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run(long n, int parts, Job job, void* fn) {
  if (parts > max_threads()) parts = max_threads();
  if (parts > n) parts = static_cast<int>(n);
  if (parts <= 1) {
    if (n > 0) job(fn, 0, n, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = job;
    fn_ = fn;
    n_ = n;
    parts_ = parts;
    pending_ = parts - 1;
    ++generation_;
  }
  wake_.notify_all();
  job(fn, 0, slice_begin(n, parts, 1), 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

void ThreadPool::worker(int index) {
  uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (index >= parts_) continue;  // this job uses fewer threads
    const Job job = job_;
    void* fn = fn_;
    const long begin = slice_begin(n_, parts_, index), end = slice_begin(n_, parts_, index + 1);
    lock.unlock();
    job(fn, begin, end, index);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace pmt::train
