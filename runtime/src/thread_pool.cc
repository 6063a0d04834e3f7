#include "thread_pool.h"

namespace pmt::rt {

ThreadPool::ThreadPool(int32_t threads) : threads_(threads) {
  if (threads_ > 1) pool_ = pthreadpool_create(static_cast<size_t>(threads_));
}

ThreadPool::~ThreadPool() {
  if (pool_ != nullptr) pthreadpool_destroy(pool_);
}

}  // namespace pmt::rt
