#include "http/url.hpp"

#include <charconv>
#include <stdexcept>

namespace infergate::http {

Url parse_url(std::string_view text) {
  auto fail = [&](std::string_view why) {
    throw std::invalid_argument("invalid URL '" + std::string(text) + "': " + std::string(why));
  };
  Url url;
  std::string_view rest = text;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    url.tls = true;
    rest.remove_prefix(8);
  } else {
    fail("it must start with http:// or https://");
  }
  const std::size_t slash = rest.find_first_of("/?#");
  std::string_view hostport = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
  if (path.find_first_of("?#") != std::string_view::npos) {
    fail("a base URL takes no query or fragment");
  }
  while (!path.empty() && path.back() == '/') {
    path.remove_suffix(1);
  }
  std::string_view port_text;
  if (hostport.starts_with('[')) {
    const std::size_t close = hostport.find(']');
    if (close == std::string_view::npos) {
      fail("unterminated IPv6 literal");
    }
    url.host = hostport.substr(1, close - 1);
    std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        fail("unexpected text after the IPv6 literal");
      }
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = hostport.rfind(':');
    url.host = hostport.substr(0, colon);
    if (colon != std::string_view::npos) {
      port_text = hostport.substr(colon + 1);
    }
  }
  if (url.host.empty()) {
    fail("no host");
  }
  if (port_text.empty()) {
    url.port = url.tls ? 443 : 80;
  } else {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc{} || end != port_text.data() + port_text.size() || value == 0 || value > 65535) {
      fail("the port must be a number from 1 to 65535");
    }
    url.port = static_cast<std::uint16_t>(value);
  }
  url.path = path;
  return url;
}

std::string Url::authority() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  std::string out = ipv6 ? "[" + host + "]" : host;
  if (port != (tls ? 443 : 80)) {
    out += ":" + std::to_string(port);
  }
  return out;
}

std::string Url::to_string() const {
  return (tls ? "https://" : "http://") + authority() + path;
}

}  // namespace infergate::http
