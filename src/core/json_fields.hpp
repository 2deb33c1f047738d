#pragma once
// A saved document's fields read by name, each throwing std::runtime_error that names the field
// when it is missing or of another type ("'level' is missing or not a number"), so that a reader
// can say which file and field to fix instead of the JSON library's internals.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string_view>

namespace infergate {

const boost::json::object& object_at(const boost::json::object& o, std::string_view key);
const boost::json::array& array_at(const boost::json::object& o, std::string_view key);
double number_at(const boost::json::object& o, std::string_view key);
// A count (of requests, tokens, samples): a whole number from 0 to 2^63 - 1.
std::int64_t count_at(const boost::json::object& o, std::string_view key);
bool bool_at(const boost::json::object& o, std::string_view key);

// `value` itself as an object; `what` names it in the error ("a point").
const boost::json::object& as_object(const boost::json::value& value, std::string_view what);

}  // namespace infergate
