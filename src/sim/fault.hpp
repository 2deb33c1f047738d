#pragma once
// Faults the simulator injects so that clients, gateways and `infergate doctor` can be tested
// against a server that misbehaves the ways real ones do. Global rates come from flags; a request
// can ask for its own with the header
//   x-infergate-fault: error=503, rate_limit=2, stall_first_ms=300, stall_between_ms=50,
//                      reset_after=5, malformed_after=3, no_usage, no_ignore_eos
// whose entries override what the rates drew.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/random.hpp"

namespace infergate::sim {

inline constexpr std::string_view kFaultHeader = "x-infergate-fault";

// What one request suffers.
struct Fault {
  std::optional<int> error_status;             // answer with this status instead of generating
  std::optional<int> rate_limit_after_s;       // answer 429 with this Retry-After
  std::chrono::milliseconds stall_first{0};    // more wait before the first token
  std::chrono::milliseconds stall_between{0};  // more wait before each later event
  std::optional<int> reset_after_tokens;       // reset the connection (TCP RST) after this many tokens
  std::optional<int> malformed_after_tokens;   // send one event that is not JSON after this many tokens
  bool no_usage = false;                       // never report usage, as some servers do not
  bool no_ignore_eos = false;                  // act as a server that knows neither ignore_eos nor min_tokens
};

// The share of requests (0 to 1) each fault hits when no header says otherwise.
struct FaultRates {
  double error = 0;
  int error_status = 500;
  double rate_limit = 0;
  int retry_after_s = 1;
  double stall = 0;
  std::chrono::milliseconds stall_first{0};
  std::chrono::milliseconds stall_between{0};
  double reset = 0;
  int reset_after_tokens = 4;
  double malformed = 0;
  int malformed_after_tokens = 2;
  bool no_usage = false;
  bool no_ignore_eos = false;
  std::uint64_t seed = 1;
};

// Requests each fault was planned for, for /metrics.
struct FaultCounters {
  std::uint64_t errors = 0;
  std::uint64_t rate_limited = 0;
  std::uint64_t stalls = 0;
  std::uint64_t resets = 0;
  std::uint64_t malformed = 0;
};

class FaultInjector {
 public:
  // Throws std::invalid_argument for a rate outside [0, 1] or an error status outside 400-599.
  explicit FaultInjector(FaultRates rates);

  // The faults for one request, counted: the rates drawn, then `header` (the value of
  // kFaultHeader, maybe empty) on top. Returns a message naming the problem when the header does
  // not parse (nothing is counted then).
  std::optional<std::string> plan(std::string_view header, Fault& out);

  [[nodiscard]] const FaultCounters& counters() const { return counters_; }
  void append_metrics(std::string& out) const;

 private:
  bool draw(double rate) { return rate > 0 && rng_.uniform() < rate; }

  FaultRates rates_;
  Rng rng_;
  FaultCounters counters_;
};

}  // namespace infergate::sim
