#include "core/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace infergate {

void parallel_for(std::size_t count, FunctionRef<void(std::size_t)> body) {
  const std::size_t workers = std::min<std::size_t>(count, std::max(1U, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) {
          failure = std::current_exception();
        }
        next = count;
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::size_t w = 1; w < workers; ++w) {
      helpers.emplace_back(work);
    }
    work();
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
}

}  // namespace infergate
