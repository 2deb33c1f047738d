#pragma once
// Asio's coroutine frames come from frame_pool (see frame_pool.hpp for why) instead of its
// per-thread recycling cache.
//
// Asio allocates every awaitable frame through thread_info_base::allocate with the
// awaitable_frame_tag, and frees it through deallocate: these are explicit specializations of
// those two member templates for that tag, the one hook Asio leaves for it. A specialization must
// be seen before the first use of the template in every translation unit, or that unit silently
// uses Asio's own (and a frame allocated by one and freed by the other corrupts both), so this
// header is not included by hand: src/core/CMakeLists.txt gives it as a forced include (-include)
// to everything that links infergate_core. The compiler rejects a unit that instantiated Asio's
// version before seeing these, and frame_pool_test checks that a coroutine's frame comes from the
// pool.
#include <boost/asio/detail/thread_info_base.hpp>

#include <cstddef>

#include "core/frame_pool.hpp"

namespace boost::asio::detail {

template <>
inline void* thread_info_base::allocate(thread_info_base::awaitable_frame_tag, thread_info_base* /*this_thread*/,
                                        std::size_t size, std::size_t align) {
  return infergate::frame_pool::allocate(size, align);
}

template <>
inline void thread_info_base::deallocate(thread_info_base::awaitable_frame_tag, thread_info_base* /*this_thread*/,
                                         void* pointer, std::size_t size) {
  infergate::frame_pool::release(pointer, size);
}

}  // namespace boost::asio::detail
