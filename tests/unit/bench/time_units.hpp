#pragma once
// The tests write their records' times in milliseconds; the records hold nanoseconds.
#include <cstdint>

namespace infergate::bench {

inline constexpr std::int64_t ms = 1'000'000;

}  // namespace infergate::bench
