#pragma once
// Errors that say this process has run out of descriptors or memory, not that a peer failed.
#include <boost/asio/error.hpp>
#include <boost/system/error_code.hpp>

#include <cerrno>

namespace infergate::http {

inline bool out_of_resources(const boost::system::error_code& ec) {
  namespace error = boost::asio::error;
  return ec == error::no_descriptors || ec == error::no_buffer_space || ec == error::no_memory ||
         ec == boost::system::error_code(ENFILE, error::get_system_category());
}

}  // namespace infergate::http
