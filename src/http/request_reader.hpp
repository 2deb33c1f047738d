#pragma once
// Gathers one request at a time from the bytes a server connection reads: the head, then the body
// (Content-Length, or chunked and decoded in place), within the server's limits. It does no I/O:
// the session reads into prepare() and calls advance(); tests feed it bytes directly.
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <span>
#include <string_view>

#include "http/chunked_decoder.hpp"
#include "http/message_head.hpp"
#include "http/read_buffer.hpp"

namespace infergate::http {

class RequestReader {
 public:
  RequestReader(std::size_t max_header_bytes, std::size_t max_body_bytes, std::size_t initial_bytes = 4096);

  enum class Status { need_more, complete, failed };

  // Room for the next read; commit() what it got.
  std::span<char> prepare();
  void commit(std::size_t bytes) { buffer_.commit(bytes); }

  // Parses what has arrived.
  Status advance();

  // The head has arrived (the body may still be coming).
  [[nodiscard]] bool head_ready() const { return head_end_ > 0; }
  [[nodiscard]] bool expect_continue() const { return head_.expect_continue; }
  // Some of the current request has arrived.
  [[nodiscard]] bool got_some() const { return buffer_.size() > 0; }
  // Why advance() failed: Beast's http::error codes (header_limit, body_limit, bad_*).
  [[nodiscard]] boost::system::error_code error() const { return error_; }

  // The complete request; valid until next().
  [[nodiscard]] const MessageHead& head() const { return head_; }
  [[nodiscard]] std::string_view body() const;

  // Bytes of a further request have arrived after the complete one (pipelining).
  [[nodiscard]] bool pipelined() const;
  // Room after the complete request for reading the next one while this one is served: at least
  // `bytes`, found without moving the data unless there is less (head() then points at its new
  // place, before anyone has taken a view of it). commit() what the read got.
  std::span<char> spare(std::size_t bytes);

  // Lets go of the complete request, keeping whatever came after it (a pipelined request).
  // `read_in_flight`: a read into spare() has not completed yet; its bytes will follow what is kept.
  void next(bool read_in_flight = false);

 private:
  Status fail(boost::system::error_code ec);
  void repoint_head();

  std::size_t max_header_bytes_;
  std::size_t max_body_bytes_;
  ReadBuffer buffer_;
  MessageHead head_;
  const char* head_at_ = nullptr;  // where head_'s views point: they are moved if the data moved
  std::size_t scanned_ = 0;
  std::size_t head_end_ = 0;
  std::size_t body_size_ = 0;  // decoded so far (chunked)
  ChunkedDecoder chunked_;
  boost::system::error_code error_;
};

}  // namespace infergate::http
