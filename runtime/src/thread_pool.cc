#include "thread_pool.h"

namespace pmt::rt {

ThreadPool::ThreadPool(int32_t threads, bool yield_workers)
    : threads_(threads), flags_(yield_workers ? PTHREADPOOL_FLAG_YIELD_WORKERS : 0) {
  if (threads_ > 1) pool_ = pthreadpool_create(static_cast<size_t>(threads_));
}

ThreadPool::~ThreadPool() {
  if (pool_ != nullptr) pthreadpool_destroy(pool_);
}

}  // namespace pmt::rt
