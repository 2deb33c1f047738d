#include "gateway/access_log.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/append_number.hpp"
#include "core/background_thread.hpp"
#include "core/json_string.hpp"

namespace infergate::gateway {

namespace {

constexpr std::size_t kEarlyFlushBytes = std::size_t{1} << 20;

void append_optional(std::string& out, const std::optional<double>& value) {
  if (value) {
    append_fixed(out, *value, 3);
  } else {
    out += "null";
  }
}

}  // namespace

// Formatted by hand rather than through a JSON DOM or a format string: this runs once per request
// on an I/O thread.
void append_access_record(std::string& out, const AccessRecord& r) {
  out += R"({"ts_ms":)";
  append_decimal(out, r.ts_ms);
  out += R"(,"request_id":)";
  append_json_string(out, r.request_id);
  if (!r.key_id.empty()) {
    out += R"(,"key_id":)";
    append_json_string(out, r.key_id);
  }
  out += R"(,"method":)";
  append_json_string(out, r.method);
  out += R"(,"path":)";
  append_json_string(out, r.path);
  out += R"(,"model":)";
  append_json_string(out, r.model);
  out += R"(,"upstream_model":)";
  append_json_string(out, r.upstream_model);
  out += R"(,"provider":)";
  append_json_string(out, r.provider);
  out += R"(,"status":)";
  append_decimal(out, r.status);
  out += R"(,"attempts":)";
  append_decimal(out, r.attempts);
  out += R"(,"fallbacks":)";
  append_decimal(out, r.fallbacks);
  out += R"(,"ttft_ms":)";
  append_optional(out, r.ttft_ms);
  out += R"(,"tpot_ms":)";
  append_optional(out, r.tpot_ms);
  out += R"(,"prompt_tokens":)";
  append_decimal(out, r.prompt_tokens);
  out += R"(,"completion_tokens":)";
  append_decimal(out, r.completion_tokens);
  out += R"(,"duration_ms":)";
  append_fixed(out, r.duration_ms, 3);
  out += R"(,"overhead_us":)";
  append_decimal(out, r.overhead_us);
  if (!r.error.empty()) {
    out += R"(,"error":)";
    append_json_string(out, r.error);
  }
  out.push_back('}');
}

AccessLog::AccessLog(const std::string& path, std::chrono::milliseconds flush_interval)
    : file_(path == "-" ? stderr : std::fopen(path.c_str(), "a")),
      owns_file_(path != "-"),
      flush_interval_(flush_interval) {
  if (file_ == nullptr) {
    throw std::runtime_error(fmt::format("cannot open the access log '{}': {}", path, std::strerror(errno)));
  }
  writer_ = std::thread([this] {
    become_background_thread("ig-access-log");
    run();
  });
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
  thread_local std::string line;  // reused: formatting allocates nothing once it has grown
  line.clear();
  append_access_record(line, record);
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
