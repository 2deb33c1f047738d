// The body the gateway sends upstream: the client's bytes with the usage asked for and the model
// renamed, spliced in without re-serialising. For any request the gateway accepts, what it sends
// must be JSON that every parser reads the same way the gateway routed it: the new model name in
// each top-level "model" (whichever one a parser takes), the usage asked for where it was added,
// and everything else as the client sent it.
#include <boost/json/basic_parser_impl.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "openai/json_handler.hpp"
#include "openai/outgoing_body.hpp"
#include "openai/request_view.hpp"

namespace {

namespace json = boost::json;
using infergate::fuzz::check;

// The string values of the top-level members named "model" (names decoded), in order; a value of
// another type is written down as "(not a string)".
class TopLevelModels : public infergate::openai::JsonHandlerBase {
 public:
  bool on_object_begin(error_code&) { return enter(); }
  bool on_object_end(std::size_t, error_code&) { return leave(); }
  bool on_array_begin(error_code&) { return enter(); }
  bool on_array_end(std::size_t, error_code&) { return leave(); }
  bool on_key(json::string_view part, std::size_t, error_code&) {
    model_next_ = depth_ == 1 && member_name(part) == "model";
    return true;
  }
  bool on_string_part(json::string_view part, std::size_t, error_code&) {
    text_.append(part.data(), part.size());
    return true;
  }
  bool on_string(json::string_view part, std::size_t, error_code&) {
    text_.append(part.data(), part.size());
    if (model_next_ && depth_ == 1) {
      values.push_back(text_);
    }
    text_.clear();
    model_next_ = false;
    return true;
  }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, error_code&) { return other(); }
  bool on_uint64(std::uint64_t, json::string_view, error_code&) { return other(); }
  bool on_double(double, json::string_view, error_code&) { return other(); }
  bool on_bool(bool, error_code&) { return other(); }
  bool on_null(error_code&) { return other(); }

  std::vector<std::string> values;

 private:
  bool enter() {
    other();
    ++depth_;
    return true;
  }
  bool leave() {
    --depth_;
    return true;
  }
  bool other() {
    if (model_next_ && depth_ == 1) {
      values.emplace_back("(not a string)");
    }
    model_next_ = false;
    return true;
  }

  int depth_ = 0;
  bool model_next_ = false;
  std::string text_;
};

// Nullopt when `text` is not JSON.
std::optional<std::vector<std::string>> top_level_models(std::string_view text) {
  json::basic_parser<TopLevelModels> parser(json::parse_options{});
  std::size_t consumed = 0;
  if (infergate::openai::parse_whole(parser, text, consumed)) {
    return std::nullopt;
  }
  return parser.handler().values;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  infergate::openai::RequestView view;
  if (infergate::openai::parse_request_view(body, view)) {
    return 0;  // refused with a 400: nothing goes upstream
  }
  const bool ask_usage = view.stream && !view.has_stream_options;
  constexpr std::string_view kUpstream = "org/up\"stream\\model";
  infergate::openai::OutgoingBody outgoing(body);
  if (ask_usage) {
    outgoing.request_usage();
  }
  check(outgoing.rename_model(kUpstream, view.model_members), "a routed request's model was not renamed");
  const std::string sent = outgoing.joined();
  check(outgoing.size() == sent.size(), "the pieces' size is not what they hold");

  infergate::openai::RequestView seen;
  check(!infergate::openai::parse_request_view(sent, seen), "what goes upstream is not a valid request");
  check(seen.model == kUpstream, "the upstream would read another model");
  check(seen.model_members == view.model_members, "the edits changed how many models the body names");
  check(seen.stream == view.stream && seen.max_tokens == view.max_tokens &&
            seen.prompt_tokens_estimate == view.prompt_tokens_estimate,
        "the edits changed what the request asks for");
  check(seen.include_usage == (ask_usage || view.include_usage), "the usage was not asked for as it should be");
  const auto models = top_level_models(sent);
  check(models.has_value(), "what goes upstream is not JSON");
  for (const std::string& model : *models) {
    check(model == kUpstream, "a parser that takes another \"model\" would read another model");
  }
  return 0;
}
