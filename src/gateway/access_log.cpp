#include "gateway/access_log.hpp"

#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include <chrono>

namespace infergate::gateway {

namespace json = boost::json;

std::string access_record_json(const AccessRecord& r) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  json::object o{
      {"ts_ms", std::chrono::duration_cast<std::chrono::milliseconds>(now).count()},
      {"request_id", r.request_id},
      {"method", r.method},
      {"path", r.path},
      {"model", r.model},
      {"upstream_model", r.upstream_model},
      {"provider", r.provider},
      {"status", r.status},
      {"attempts", r.attempts},
      {"fallbacks", r.fallbacks},
      {"ttft_ms", r.ttft_ms ? json::value(*r.ttft_ms) : json::value(nullptr)},
      {"tpot_ms", r.tpot_ms ? json::value(*r.tpot_ms) : json::value(nullptr)},
      {"prompt_tokens", r.prompt_tokens},
      {"completion_tokens", r.completion_tokens},
      {"duration_ms", r.duration_ms},
      {"overhead_us", r.overhead_us},
  };
  if (!r.error.empty()) {
    o["error"] = r.error;
  }
  return json::serialize(o);
}

AccessLog::AccessLog(const std::string& path) {
  static std::once_flag pool_once;
  std::call_once(pool_once, [] { spdlog::init_thread_pool(8192, 1); });
  spdlog::sink_ptr sink;
  if (path == "-") {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  } else {
    sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path);
  }
  logger_ = std::make_shared<spdlog::async_logger>("access", sink, spdlog::thread_pool(),
                                                   spdlog::async_overflow_policy::block);
  logger_->set_pattern("%v");
  logger_->flush_on(spdlog::level::info);
}

AccessLog::~AccessLog() {
  logger_->flush();
}

void AccessLog::write(const AccessRecord& record) {
  logger_->info(access_record_json(record));
}

}  // namespace infergate::gateway
