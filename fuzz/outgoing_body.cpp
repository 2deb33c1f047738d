// The body the gateway sends upstream: the client's bytes with the usage asked for and the model
// renamed, spliced in without re-serialising. For any request the gateway accepts, what it sends
// must be JSON that every parser reads the same way the gateway routed it: the new model name in
// each top-level "model" and the usage asked for in each top-level "stream_options" (whichever
// one a parser takes), and everything else as the client sent it.
#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_input.hpp"
#include "openai/json_handler.hpp"
#include "openai/outgoing_body.hpp"
#include "openai/request_view.hpp"

namespace {

namespace json = boost::json;
using infergate::fuzz::check;

// What a parser that reads any one of the repeated members would see: the string values of the
// top-level members named "model" (names decoded), in order, a value of another type written
// down as "(not a string)"; and for each top-level "stream_options", whether it is an object whose
// every "include_usage" (there being one at least) is true.
class TopLevelMembers : public infergate::openai::JsonHandlerBase {
 public:
  bool on_object_begin(error_code&) { return enter(true); }
  bool on_object_end(std::size_t, error_code&) { return leave(); }
  bool on_array_begin(error_code&) { return enter(false); }
  bool on_array_end(std::size_t, error_code&) { return leave(); }
  bool on_key(json::string_view part, std::size_t, error_code&) {
    const std::string_view name = member_name(part);
    model_next_ = depth_ == 1 && name == "model";
    options_next_ = depth_ == 1 && name == "stream_options";
    flag_next_ = depth_ == 2 && in_options_ && name == "include_usage";
    return true;
  }
  bool on_string_part(json::string_view part, std::size_t, error_code&) {
    text_.append(part.data(), part.size());
    return true;
  }
  bool on_string(json::string_view part, std::size_t, error_code&) {
    text_.append(part.data(), part.size());
    if (model_next_) {
      models.push_back(text_);
      model_next_ = false;
    }
    text_.clear();
    return other();
  }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, error_code&) { return other(); }
  bool on_uint64(std::uint64_t, json::string_view, error_code&) { return other(); }
  bool on_double(double, json::string_view, error_code&) { return other(); }
  bool on_bool(bool v, error_code&) {
    if (flag_next_) {
      options.back().flags += 1;
      options.back().all_true = options.back().all_true && v;
      flag_next_ = false;
    }
    return other();
  }
  bool on_null(error_code&) { return other(); }

  struct StreamOptions {
    bool object = false;
    int flags = 0;
    bool all_true = true;
  };
  std::vector<std::string> models;
  std::vector<StreamOptions> options;

 private:
  bool enter(bool object) {
    if (options_next_ && object) {
      options.push_back({true, 0, true});
      options_next_ = false;
      in_options_ = true;
    }
    other();
    ++depth_;
    return true;
  }
  bool leave() {
    --depth_;
    in_options_ = in_options_ && depth_ >= 2;
    return true;
  }
  // A value that is not what the member needs.
  bool other() {
    if (model_next_) {
      models.emplace_back("(not a string)");
    }
    if (options_next_) {
      options.push_back({false, 0, false});
    }
    if (flag_next_) {
      options.back().flags += 1;
      options.back().all_true = false;
    }
    model_next_ = options_next_ = flag_next_ = false;
    return true;
  }

  int depth_ = 0;
  bool model_next_ = false;
  bool options_next_ = false;
  bool flag_next_ = false;
  bool in_options_ = false;  // inside a top-level stream_options object
  std::string text_;
};

// Nullopt when `text` is not JSON.
std::optional<TopLevelMembers> top_level_members(std::string_view text) {
  json::basic_parser<TopLevelMembers> parser(json::parse_options{});
  std::size_t consumed = 0;
  if (infergate::openai::parse_whole(parser, text, consumed)) {
    return std::nullopt;
  }
  return std::move(parser.handler());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  infergate::openai::RequestView view;
  if (infergate::openai::parse_request_view(body, view)) {
    return 0;  // refused with a 400: nothing goes upstream
  }
  const bool ask_usage = view.stream && !view.include_usage;
  constexpr std::string_view kUpstream = "org/up\"stream\\model";
  infergate::openai::OutgoingBody outgoing(body);
  if (ask_usage) {
    outgoing.request_usage(view.stream_options_members);
  }
  check(outgoing.rename_model(kUpstream, view.model_members), "a routed request's model was not renamed");
  const std::string sent = outgoing.joined();
  check(outgoing.size() == sent.size(), "the pieces' size is not what they hold");

  infergate::openai::RequestView seen;
  check(!infergate::openai::parse_request_view(sent, seen), "what goes upstream is not a valid request");
  check(seen.model == kUpstream, "the upstream would read another model");
  check(seen.model_members == view.model_members, "the edits changed how many models the body names");
  check(seen.stream_options_members ==
            (ask_usage ? std::max(view.stream_options_members, 1) : view.stream_options_members),
        "the usage request added stream_options beside the client's own");
  check(seen.stream == view.stream && seen.max_tokens == view.max_tokens &&
            seen.prompt_tokens_estimate == view.prompt_tokens_estimate,
        "the edits changed what the request asks for");
  check(seen.include_usage == (ask_usage || view.include_usage), "the usage was not asked for as it should be");
  const auto members = top_level_members(sent);
  check(members.has_value(), "what goes upstream is not JSON");
  for (const std::string& model : members->models) {
    check(model == kUpstream, "a parser that takes another \"model\" would read another model");
  }
  if (ask_usage) {
    for (const TopLevelMembers::StreamOptions& options : members->options) {
      check(options.object && options.flags > 0 && options.all_true,
            "a parser that takes another stream_options would not ask for the usage");
    }
  }
  return 0;
}
