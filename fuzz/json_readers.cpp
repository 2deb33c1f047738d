// The JSON the gateway reads from clients and upstreams, read by each of its readers, each against
// the reading it promises to agree with:
// - the fast path (json_fast_path.hpp) gives a handler the events Boost.JSON's parser would, and
//   accepts nothing that parser rejects;
// - the stream chunk's usage (chunk_usage.hpp) is what the full chunk parse reads;
// - the simple usage reader (usage_object.hpp) reads what the parser reads whenever it reads.
// The request view (the gateway's) and the completion request (the simulator's) are read too, for
// what they must never do: crash.
#include <boost/json/basic_parser_impl.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "openai/chunk_usage.hpp"
#include "openai/completion_request.hpp"
#include "openai/json_fast_path.hpp"
#include "openai/json_handler.hpp"
#include "openai/request_view.hpp"
#include "openai/stream_chunk.hpp"
#include "openai/usage_object.hpp"

namespace {

namespace json = boost::json;
using infergate::fuzz::check;

// Writes down every event with its value, strings and names joined from their parts (the two
// readers may cut them differently). Its on_key_part hides the base's, which keeps only short names.
class EventLog : public infergate::openai::JsonHandlerBase {
 public:
  bool on_object_begin(error_code&) { return note("{"); }
  bool on_object_end(std::size_t n, error_code&) { return note("}" + std::to_string(n)); }
  bool on_array_begin(error_code&) { return note("["); }
  bool on_array_end(std::size_t n, error_code&) { return note("]" + std::to_string(n)); }
  bool on_key_part(json::string_view part, std::size_t, error_code&) { return gather(part); }
  bool on_key(json::string_view part, std::size_t, error_code&) { return whole("k", part); }
  bool on_string_part(json::string_view part, std::size_t, error_code&) { return gather(part); }
  bool on_string(json::string_view part, std::size_t, error_code&) { return whole("s", part); }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, json::string_view, error_code&) { return note("i" + std::to_string(v)); }
  bool on_uint64(std::uint64_t v, json::string_view, error_code&) { return note("u" + std::to_string(v)); }
  bool on_double(double v, json::string_view, error_code&) {
    return note("d" + std::to_string(std::bit_cast<std::uint64_t>(v)));
  }
  bool on_bool(bool v, error_code&) { return note(v ? "t" : "f"); }
  bool on_null(error_code&) { return note("n"); }

  [[nodiscard]] const std::string& text() const { return log_; }

 private:
  bool note(const std::string& event) {
    log_ += event;
    log_ += '\n';
    return true;
  }
  bool gather(json::string_view part) {
    parts_.append(part.data(), part.size());
    return true;
  }
  bool whole(const char* kind, json::string_view last) {
    parts_.append(last.data(), last.size());
    log_ += kind;
    log_ += std::to_string(parts_.size());
    log_ += ':';
    log_ += parts_;
    log_ += '\n';
    parts_.clear();
    return true;
  }

  std::string log_;
  std::string parts_;
};

void fast_path_agrees_with_the_parser(std::string_view text) {
  EventLog fast;
  const bool accepted = infergate::openai::read_common_json(text, fast);
  json::basic_parser<EventLog> parser(json::parse_options{});
  std::size_t consumed = 0;
  const bool valid = !infergate::openai::parse_whole(parser, text, consumed);
  if (accepted) {
    check(valid, "the fast path accepted what the parser rejects");
    check(fast.text() == parser.handler().text(), "the fast path's events differ from the parser's");
  }
}

bool same(const std::optional<infergate::openai::Usage>& a, const std::optional<infergate::openai::Usage>& b) {
  if (a.has_value() != b.has_value()) {
    return false;
  }
  return !a || (a->prompt_tokens == b->prompt_tokens && a->completion_tokens == b->completion_tokens);
}

void chunk_usage_agrees_with_the_chunk_parse(std::string_view text) {
  infergate::openai::ChunkView view;
  const auto problem = infergate::openai::parse_stream_chunk(text, view);
  const auto usage = infergate::openai::read_chunk_usage(text);
  if (!usage) {
    check(problem.has_value() || view.error.has_value(), "the chunk's usage was refused where the parse reads one");
    return;
  }
  check(!problem && !view.error, "the chunk's usage was read where the parse finds no chunk");
  check(same(usage->usage, view.usage), "the chunk's usage differs from the parse's");
  check(usage->has_choices == view.has_choices, "the chunk's choices differ from the parse's");
}

void simple_usage_agrees_with_the_parser(std::string_view text) {
  for (const bool nested : {false, true}) {
    const auto simple = infergate::openai::read_simple_usage(text, nested);
    if (simple.read) {
      check(same(simple.usage, infergate::openai::parse_usage_with_parser(text, nested)),
            "the simple usage reader differs from the parser");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fast_path_agrees_with_the_parser(text);
  chunk_usage_agrees_with_the_chunk_parse(text);
  simple_usage_agrees_with_the_parser(text);
  infergate::openai::RequestView view;
  (void)infergate::openai::parse_request_view(text, view);
  for (const auto endpoint : {infergate::openai::Endpoint::chat, infergate::openai::Endpoint::completions}) {
    infergate::openai::CompletionRequest request;
    (void)infergate::openai::parse_completion_request(text, endpoint, request);
  }
  return 0;
}
