#pragma once
// "Did you mean ...?" for a name a person mistyped: a config key, a command, an option.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace infergate {

// The name in `names` closest to `typed` (letters added, removed or changed, ignoring case) when it
// is close enough to be a slip: at most a third of `typed`'s letters, and at least one.
[[nodiscard]] std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string> names);

// " (did you mean 'threads'?)" for that name, or "" when there is none: to append to a message.
[[nodiscard]] std::string did_you_mean(std::string_view typed, std::span<const std::string> names);

}  // namespace infergate
