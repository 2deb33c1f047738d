#pragma once
// `infergate doctor --base-url URL`: walks the path a request takes to an OpenAI-compatible
// endpoint and stops at the first broken step, saying why and what to do: name resolution, TCP,
// TLS, /models with the key, a one-token streamed request (TTFT, usage, rate-limit headers),
// whether ignore_eos is honoured (which fixed-length benchmarks need), and whether the Responses
// API is served.
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/finding.hpp"
#include "http/client.hpp"
#include "http/header_option.hpp"
#include "http/url.hpp"

namespace infergate::doctor {

struct EndpointOptions {
  http::Url url;
  std::string model;                       // empty: the first the server lists
  std::string api_key;                     // empty: none sent
  std::vector<http::HeaderField> headers;  // --header: sent with every request
  http::TlsOptions tls;
  std::chrono::milliseconds timeout{15'000};
};

boost::asio::awaitable<std::vector<Finding>> check_endpoint(EndpointOptions options);

// doctor's --header: as http::parse_header_option, refusing too the fields the checks set
// themselves (Content-Type, Accept, and Authorization, which --api-key sets).
[[nodiscard]] http::HeaderField parse_header_option(std::string_view text);

}  // namespace infergate::doctor
