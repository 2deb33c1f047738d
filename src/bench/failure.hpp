#pragma once
// Turns transport errors into failure classes a user can count and act on.
#include <boost/system/error_code.hpp>

#include <string>

namespace infergate::bench {

enum class Phase { connect, request, response };

// "connect_refused", "connect_timeout", "dns", "tls", "timeout", "connection_reset" or "io_error".
std::string failure_class(const boost::system::error_code& ec, Phase phase);

// One sentence for the user: what happened and, where it helps, what to check.
std::string failure_message(const boost::system::error_code& ec, Phase phase, const std::string& target);

}  // namespace infergate::bench
