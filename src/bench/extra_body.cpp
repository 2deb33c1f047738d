#include "bench/extra_body.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/json_error.hpp"

namespace infergate::bench {

namespace {

struct Owned {
  std::string_view member;
  std::string_view owner;  // what sets it instead
};

constexpr Owned kOwned[] = {
    {"model", "is set by --model"},
    {"messages", "is the workload's prompt (--input-tokens, --prompts, --turns, --prefix-groups)"},
    {"prompt", "is the workload's prompt (--input-tokens, --prompts, --prefix-groups)"},
    {"input", "is the workload's prompt (--input-tokens, --prompts, --turns, --prefix-groups)"},
    {"max_tokens", "is set by --output-tokens"},
    {"max_completion_tokens", "is set by --output-tokens (as max_tokens)"},
    {"max_output_tokens", "is set by --output-tokens"},
    {"ignore_eos", "is sent unless --no-ignore-eos, so that output lengths are as asked"},
    {"min_tokens", "is sent with ignore_eos unless --no-ignore-eos, so that output lengths are as asked"},
    {"stream", "is set by --no-stream"},
    {"stream_options", "is set by the benchmark, which asks for include_usage"},
    {"n", "asks for several answers per request; the benchmark measures one"},
};

}  // namespace

boost::json::object parse_extra_body(std::string_view text) {
  std::string error;
  boost::json::value value = parse_json(text, error);
  if (!error.empty()) {
    throw std::invalid_argument(fmt::format("not valid JSON: {}", error));
  }
  if (!value.is_object()) {
    throw std::invalid_argument("expected a JSON object of members to add to each request, e.g. '{\"temperature\":0}'");
  }
  for (const auto& member : value.get_object()) {
    for (const Owned& owned : kOwned) {
      if (member.key() == owned.member) {
        throw std::invalid_argument(fmt::format("\"{}\" {}", owned.member, owned.owner));
      }
    }
  }
  return std::move(value.get_object());
}

}  // namespace infergate::bench
