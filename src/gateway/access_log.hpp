#pragma once
// One JSON line per request. Lines are formatted on the I/O thread and written by spdlog's
// background thread, so a slow disk never stalls traffic. Prompts and keys are never part of it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace spdlog {
class logger;
}

namespace infergate::gateway {

struct AccessRecord {
  std::string request_id;
  std::string method;
  std::string path;
  std::string model;
  std::string upstream_model;
  std::string provider;
  int status = 0;
  int attempts = 0;
  int fallbacks = 0;
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  double duration_ms = 0;
  std::int64_t overhead_us = 0;
  std::string error;
};

class AccessLog {
 public:
  // "-" writes to standard error; anything else is a file, appended to.
  explicit AccessLog(const std::string& path);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  void write(const AccessRecord& record);

 private:
  std::shared_ptr<spdlog::logger> logger_;
};

std::string access_record_json(const AccessRecord& record);

}  // namespace infergate::gateway
