#pragma once
// `infergate sim`: an OpenAI-compatible server whose token timing follows the performance model
// and the batching engine. Runs on one io_context (one thread): the engines and every session
// share it, so no locks are needed.
#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/rate_limiter.hpp"
#include "http/server.hpp"
#include "sim/engine.hpp"
#include "sim/fault.hpp"
#include "sim/perf_model.hpp"
#include "sim/profile.hpp"

namespace infergate::sim {

struct SimOptions {
  std::vector<Profile> profiles;
  std::optional<std::string> served_model_name;  // only with a single profile
  EngineLimits engine;
  int tokens_per_chunk = 1;
  std::optional<std::string> api_key;  // when set, requests must carry "Authorization: Bearer KEY"
  http::ServerLimits limits;
  FaultRates faults;
  // Per served model, as Groq's API limits: 429 with Retry-After beyond them, and the
  // x-ratelimit-* headers on every answer.
  RateLimits rate_limits;
  // Of requests whose tool_choice is "auto" (tools given), the share answered with a call of the
  // first function instead of text (tool_call_format.hpp).
  double tool_call_share = 0;
};

class SimServer {
 public:
  // Throws std::invalid_argument for options that cannot work (no profile, a duplicate name).
  SimServer(boost::asio::io_context& io, SimOptions options);
  ~SimServer();
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  std::uint16_t listen(const std::string& host, std::uint16_t port);

  // Names served, in profile order.
  [[nodiscard]] std::vector<std::string> model_names() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace infergate::sim
