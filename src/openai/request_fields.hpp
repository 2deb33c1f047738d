#pragma once
// What every parser of request bodies checks the same way, and says the same way: the body is a
// JSON object, it names a model, and a field of the wrong type is a 400 naming it ("'stream' must
// be a boolean, got a string"), never a silent default.
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "openai/api_error.hpp"

namespace infergate::openai {

// "a string", "an array", "null": the JSON kind of `v`, as a message names it.
[[nodiscard]] std::string_view kind_of(const boost::json::value& v);

[[nodiscard]] ApiError wrong_type(std::string_view field, std::string_view expected, const boost::json::value& got);

// Parses `body` into `parsed`, an object, and reads its "model" (a string) into `model`; or
// returns the 400 to send: the JSON's syntax error and where, another kind of value, no model.
[[nodiscard]] std::optional<ApiError> parse_request_object(std::string_view body, boost::json::value& parsed,
                                                           std::string& model);

}  // namespace infergate::openai
