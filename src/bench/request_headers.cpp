#include "bench/request_headers.hpp"

namespace infergate::bench {

namespace {

constexpr http::OwnedHeader kOwned[] = {
    {"content-type", "is application/json, set by the benchmark"},
    {"accept", "is set by the benchmark (text/event-stream for a stream)"},
    {"authorization", "is set from --api-key (or $OPENAI_API_KEY, or a --target's api_key_env)"},
    {"x-infergate-trace", "is set by --trace"},
};

}  // namespace

HeaderField parse_header_option(std::string_view text) {
  return http::parse_header_option(text, kOwned);
}

}  // namespace infergate::bench
