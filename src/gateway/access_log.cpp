#include "gateway/access_log.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/background_thread.hpp"
#include "core/repeated_json_fields.hpp"
#include "core/text_writer.hpp"
#include "core/write_all.hpp"

namespace infergate::gateway {

namespace {

// The writer wakes early at this much. On a core it shares with an I/O thread, each batch's write
// delays the requests in flight: a 1 MiB write took the p99 a quarter above what 256 KiB do
// (bench/RESULTS.md, "2026-12-04, eighth session"); smaller batches cost more wake-ups.
constexpr std::size_t kEarlyFlushBytes = std::size_t{256} << 10;
// The field names and punctuation of a record take fewer bytes than this.
constexpr std::size_t kRecordFrame = 320;

void write_optional(TextWriter& w, const std::optional<double>& value) {
  if (value) {
    w.fixed(*value, 3);
  } else {
    w.literal("null");
  }
}

}  // namespace

// Formatted by hand, through a pointer into memory sized for the whole line first, rather than
// through a JSON DOM, a format string or a string append per piece: this runs once per request on
// an I/O thread.
std::string_view access_line(const AccessRecord& r) {
  // Requests mostly repeat the route of the one before.
  thread_local RepeatedJsonFields<5> route_fields({"method", "path", "model", "upstream_model", "provider"});
  const std::string_view route = route_fields.text({r.method, r.path, r.model, r.upstream_model, r.provider});
  std::size_t bound = kRecordFrame + route.size() + 7 * kDecimalBound + 3 * kFixedBound;
  for (const std::string_view text : {r.request_id, r.key_id, r.error}) {
    bound += json_string_bound(text.size());
  }
  return write_scratch(bound, [&r, route](TextWriter& w) {
    w.literal(R"({"ts_ms":)");
    w.decimal(r.ts_ms);
    w.literal(R"(,"request_id":)");
    w.json_string(r.request_id);
    if (!r.key_id.empty()) {
      w.literal(R"(,"key_id":)");
      w.json_string(r.key_id);
    }
    w.text(route);
    w.literal(R"(,"status":)");
    w.decimal(r.status);
    w.literal(R"(,"attempts":)");
    w.decimal(r.attempts);
    w.literal(R"(,"fallbacks":)");
    w.decimal(r.fallbacks);
    w.literal(R"(,"ttft_ms":)");
    write_optional(w, r.ttft_ms);
    w.literal(R"(,"tpot_ms":)");
    write_optional(w, r.tpot_ms);
    w.literal(R"(,"prompt_tokens":)");
    w.decimal(r.prompt_tokens);
    w.literal(R"(,"completion_tokens":)");
    w.decimal(r.completion_tokens);
    w.literal(R"(,"duration_ms":)");
    w.fixed(r.duration_ms, 3);
    w.literal(R"(,"overhead_us":)");
    w.decimal(r.overhead_us);
    if (!r.error.empty()) {
      w.literal(R"(,"error":)");
      w.json_string(r.error);
    }
    w.literal("}\n");
  });
}

AccessLog::AccessLog(const std::string& path, std::chrono::milliseconds flush_interval)
    : fd_(path == "-" ? STDERR_FILENO : ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666)),
      owns_fd_(path != "-"),
      flush_interval_(flush_interval) {
  if (fd_ < 0) {
    throw std::runtime_error(fmt::format("cannot open the access log '{}': {}", path, std::strerror(errno)));
  }
  struct stat st {};
  on_disk_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
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
  if (owns_fd_) {
    ::close(fd_);
  }
}

void AccessLog::write(const AccessRecord& record) {
  const std::string_view line = access_line(record);  // copied once, under the lock
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

AccessLog::Put AccessLog::put(std::string_view batch) {
  if (torn_) {
    // The cut line ends here, so that the lines after it stay lines of their own.
    if (const int error = write_all(fd_, "\n").error; error != 0) {
      return {error, static_cast<std::uint64_t>(std::count(batch.begin(), batch.end(), '\n'))};
    }
    torn_ = false;
  }
  const WriteAll wrote = write_all(fd_, batch);
  if (wrote.error != 0) {
    const std::string_view unwritten = batch.substr(wrote.written);
    torn_ = wrote.written > 0 && batch[wrote.written - 1] != '\n';
    return {wrote.error, static_cast<std::uint64_t>(std::count(unwritten.begin(), unwritten.end(), '\n'))};
  }
  if (on_disk_) {
    // Where the batch ended: the file's end, unless someone else wrote since.
    const std::int64_t end = ::lseek(fd_, 0, SEEK_CUR);
    written_pages_.appended(fd_, end - static_cast<std::int64_t>(batch.size()), end);
  }
  return {};
}

void AccessLog::run() {
  std::uint64_t lost_since_ok = 0;
  std::string batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, flush_interval_, [this] { return stopping_ || pending_.size() >= kEarlyFlushBytes; });
    batch.swap(pending_);
    const bool stopping = stopping_;
    lock.unlock();
    if (!batch.empty()) {
      if (const Put put_batch = put(batch); put_batch.error == 0) {
        if (lost_since_ok > 0) {
          spdlog::warn("the access log is written again, after {} lines were dropped", lost_since_ok);
          lost_since_ok = 0;
        }
      } else {
        if (lost_since_ok == 0) {
          spdlog::error("the access log cannot be written ({}): its lines are dropped until it can",
                        std::strerror(put_batch.error));
        }
        lost_since_ok += put_batch.lines_lost;
        lines_lost_.fetch_add(put_batch.lines_lost, std::memory_order_relaxed);
      }
      batch.clear();
    }
    if (stopping) {
      return;
    }
    lock.lock();
  }
}

}  // namespace infergate::gateway
