#pragma once
// The completion token of a coroutine's asynchronous call that hands back its error code with its
// result instead of throwing: an ended connection or a cancelled timer is an outcome the caller
// handles, not an exception.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace infergate {

inline constexpr auto as_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

}  // namespace infergate
