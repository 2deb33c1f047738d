#include "core/json_fields.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace infergate {

namespace json = boost::json;

namespace {

[[noreturn]] void missing(std::string_view key, const char* type) {
  throw std::runtime_error(fmt::format("'{}' is missing or not {}", key, type));
}

}  // namespace

const json::object& object_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_object()) {
    missing(key, "an object");
  }
  return v->get_object();
}

const json::array& array_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_array()) {
    missing(key, "an array");
  }
  return v->get_array();
}

double number_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_number()) {
    missing(key, "a number");
  }
  return v->to_number<double>();
}

std::int64_t count_at(const json::object& o, std::string_view key) {
  const double v = number_at(o, key);
  // Casting a double outside the target's range is undefined: check before.
  if (!(v >= 0 && v < 0x1p63) || v != std::floor(v)) {
    throw std::runtime_error(fmt::format("'{}' must be a whole number from 0 up", key));
  }
  return static_cast<std::int64_t>(v);
}

bool bool_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_bool()) {
    missing(key, "true or false");
  }
  return v->get_bool();
}

const json::object& as_object(const json::value& value, std::string_view what) {
  if (!value.is_object()) {
    throw std::runtime_error(fmt::format("{} must be an object", what));
  }
  return value.get_object();
}

}  // namespace infergate
