#pragma once
// One JSON line per request. The I/O threads only append the line to a buffer under a short lock;
// a writer thread wakes every flush interval (or when the buffer grows large) and writes the batch,
// so no request ever waits for the disk or wakes another thread. Prompts and keys are never part
// of a record.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "core/drop_behind.hpp"

namespace infergate::gateway {

// Views into the request's own state: a record is formatted within write() and not kept.
struct AccessRecord {
  std::int64_t ts_ms = 0;  // Unix milliseconds when the request ended
  std::string_view request_id;
  std::string_view key_id;  // the virtual key's public id, never the key
  std::string_view method;
  std::string_view path;
  std::string_view model;
  std::string_view upstream_model;
  std::string_view provider;
  int status = 0;
  int attempts = 0;
  int fallbacks = 0;
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  double duration_ms = 0;
  std::int64_t overhead_us = 0;
  std::string_view error;
};

class AccessLog {
 public:
  // "-" writes to standard error; anything else is a file, appended to. Throws std::runtime_error
  // when the file cannot be opened.
  explicit AccessLog(const std::string& path,
                     std::chrono::milliseconds flush_interval = std::chrono::milliseconds(200));
  ~AccessLog();  // writes what is left
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  void write(const AccessRecord& record);

  // Lines whose batch the file did not take (a full disk, a closed pipe): they are dropped, with
  // an error logged when the writes start failing and a note when they work again.
  [[nodiscard]] std::uint64_t lines_lost() const { return lines_lost_.load(std::memory_order_relaxed); }

 private:
  struct Put {
    int error = 0;                 // the system's error number when the file did not take it all
    std::uint64_t lines_lost = 0;  // lines that did not go out whole
  };

  void run();
  // Writes one batch, after ending the line a failed write cut short, if any.
  Put put(std::string_view batch);

  int fd_;
  bool owns_fd_;
  bool on_disk_ = false;      // a regular file, standard error included
  bool torn_ = false;         // the writer's: a failed write left the file inside a line
  DropBehind written_pages_;  // the writer thread's
  std::chrono::milliseconds flush_interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string pending_;
  bool stopping_ = false;
  std::atomic<std::uint64_t> lines_lost_{0};
  std::thread writer_;
};

// The record as one JSON line, newline included, in this thread's scratch memory
// (text_writer.hpp): valid until the thread formats another line.
std::string_view access_line(const AccessRecord& record);

}  // namespace infergate::gateway
