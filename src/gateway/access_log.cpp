#include "gateway/access_log.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace infergate::gateway {

namespace json = boost::json;

namespace {
constexpr std::size_t kEarlyFlushBytes = std::size_t{1} << 20;
}

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

AccessLog::AccessLog(const std::string& path, std::chrono::milliseconds flush_interval)
    : file_(path == "-" ? stderr : std::fopen(path.c_str(), "a")),
      owns_file_(path != "-"),
      flush_interval_(flush_interval) {
  if (file_ == nullptr) {
    throw std::runtime_error(fmt::format("cannot open the access log '{}': {}", path, std::strerror(errno)));
  }
  writer_ = std::thread([this] { run(); });
}

AccessLog::~AccessLog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  writer_.join();
  if (owns_file_) {
    std::fclose(file_);
  }
}

void AccessLog::write(const AccessRecord& record) {
  std::string line = access_record_json(record);
  line.push_back('\n');
  bool large = false;
  {
    std::lock_guard lock(mutex_);
    pending_.append(line);
    large = pending_.size() >= kEarlyFlushBytes;
  }
  if (large) {
    wake_.notify_one();
  }
}

void AccessLog::run() {
  std::string batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, flush_interval_, [this] { return stopping_ || pending_.size() >= kEarlyFlushBytes; });
    batch.swap(pending_);
    const bool stopping = stopping_;
    lock.unlock();
    if (!batch.empty()) {
      std::fwrite(batch.data(), 1, batch.size(), file_);
      std::fflush(file_);
      batch.clear();
    }
    if (stopping) {
      return;
    }
    lock.lock();
  }
}

}  // namespace infergate::gateway
