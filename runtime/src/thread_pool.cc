#include "thread_pool.h"

#include <sched.h>
#include <unistd.h>

namespace pmt::rt {

int32_t available_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int32_t>(online) : 1;
}

ThreadPool::ThreadPool(int32_t threads, bool yield_workers, bool start_now)
    : threads_(threads), flags_(yield_workers ? PTHREADPOOL_FLAG_YIELD_WORKERS : 0) {
  if (start_now) start();
}

bool ThreadPool::start() {
  if (threads_ > 1 && pool_ == nullptr) pool_ = pthreadpool_create(static_cast<size_t>(threads_));
  return ok();
}

ThreadPool::~ThreadPool() {
  if (pool_ != nullptr) pthreadpool_destroy(pool_);
}

}  // namespace pmt::rt
