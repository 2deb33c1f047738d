#include "bench/trace_file.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "core/json_error.hpp"
#include "core/text_file.hpp"

namespace infergate::bench {

namespace json = boost::json;

namespace {

// The longest prompt or answer a trace may ask for: ten million tokens, past any model's context,
// and a bound on the text made up for it.
constexpr std::int64_t kMostTokens = 10'000'000;

// A whole number of tokens from 1 to kMostTokens, else nothing.
std::optional<int> token_count(const json::value& v) {
  if (v.is_int64() && v.get_int64() > 0 && v.get_int64() <= kMostTokens) {
    return static_cast<int>(v.get_int64());
  }
  return std::nullopt;
}

}  // namespace

std::vector<TraceRequest> load_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error(fmt::format("cannot open trace '{}'", path));
  }
  std::vector<std::pair<double, TraceRequest>> stamped;  // milliseconds as written, the request
  for_each_filled_line(in, [&](const std::string& line, int number) {
    auto fail = [&](std::string_view why) { throw std::runtime_error(fmt::format("{}:{}: {}", path, number, why)); };
    std::string error;
    const json::value v = parse_json(line, error);
    if (!error.empty() || !v.is_object()) {
      fail(error.empty() ? "each line must be a JSON object such as {\"timestamp\": 0, \"input_length\": 512}"
                         : "not valid JSON (" + error + ")");
    }
    const json::object& o = v.get_object();
    const auto* timestamp = o.if_contains("timestamp");
    if (timestamp == nullptr || !timestamp->is_number() || !(timestamp->to_number<double>() >= 0) ||
        !std::isfinite(timestamp->to_number<double>())) {
      fail("'timestamp' (milliseconds, 0 or more) is missing or not a number");
    }
    TraceRequest r;
    for (const char* key : {"text_input", "prompt"}) {
      if (const auto* text = o.if_contains(key); text != nullptr) {
        if (!text->is_string() || text->get_string().empty()) {
          fail(fmt::format("'{}' must be a non-empty string", key));
        }
        r.text = std::string(text->get_string());
      }
    }
    if (const auto* length = o.if_contains("input_length")) {
      const auto tokens = token_count(*length);
      if (!tokens) {
        fail("'input_length' must be a whole number of tokens, from 1 to 10,000,000");
      }
      r.input_tokens = *tokens;
    } else if (!r.text) {
      fail("a request needs 'input_length' (tokens) or 'text_input' (the prompt)");
    }
    if (const auto* length = o.if_contains("output_length")) {
      r.output_tokens = token_count(*length);
      if (!r.output_tokens) {
        fail("'output_length' must be a whole number of tokens, from 1 to 10,000,000");
      }
    }
    if (const auto* ids = o.if_contains("hash_ids")) {
      if (!ids->is_array()) {
        fail("'hash_ids' must be an array of block ids");
      }
      for (const auto& id : ids->get_array()) {
        if (!(id.is_uint64() || (id.is_int64() && id.get_int64() >= 0))) {
          fail("'hash_ids' must hold whole numbers, 0 or more");
        }
        r.hash_ids.push_back(id.to_number<std::uint64_t>());
      }
      if (r.text) {
        fail("'hash_ids' name made-up blocks; a request with 'text_input' has its own text");
      }
    }
    stamped.emplace_back(timestamp->to_number<double>(), std::move(r));
  });
  if (stamped.empty()) {
    throw std::runtime_error(fmt::format("trace '{}' holds no requests", path));
  }
  std::stable_sort(stamped.begin(), stamped.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TraceRequest> out;
  out.reserve(stamped.size());
  for (auto& [ms, r] : stamped) {
    r.at_s = (ms - stamped.front().first) / 1000.0;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace infergate::bench
