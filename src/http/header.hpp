#pragma once
#include <string_view>

namespace infergate::http {

// One header field, as views into whatever holds the message.
struct Header {
  std::string_view name;
  std::string_view value;
};

}  // namespace infergate::http
