#include "http/request_reader.hpp"

#include <boost/beast/http/error.hpp>

#include <cstring>

namespace infergate::http {

namespace bhttp = boost::beast::http;
using boost::system::error_code;

namespace {

// The least room offered to one read while a head or a chunked body is arriving.
constexpr std::size_t kMinRead = 2048;

}  // namespace

RequestReader::RequestReader(std::size_t max_header_bytes, std::size_t max_body_bytes, std::size_t initial_bytes)
    : max_header_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes), buffer_(initial_bytes) {}

std::span<char> RequestReader::prepare() {
  if (head_end_ > 0 && head_.framing == BodyFraming::length) {
    const std::size_t total = head_end_ + head_.content_length;
    return buffer_.prepare(total > buffer_.size() ? total - buffer_.size() : kMinRead);
  }
  return buffer_.prepare(kMinRead);
}

RequestReader::Status RequestReader::fail(error_code ec) {
  error_ = ec;
  return Status::failed;
}

RequestReader::Status RequestReader::advance() {
  if (error_) {
    return Status::failed;
  }
  if (head_end_ == 0) {
    // Empty lines before a request line are ignored (RFC 9112 section 2.2).
    while (buffer_.size() >= 2 && std::memcmp(buffer_.data(), "\r\n", 2) == 0) {
      buffer_.consume(2);
      scanned_ = 0;
    }
    const std::string_view data(buffer_.data(), buffer_.size());
    error_code ec;
    const std::size_t end = take_request_head(data, scanned_, head_, ec);
    if (ec) {
      return fail(ec);
    }
    if (end == 0) {
      return buffer_.size() >= max_header_bytes_ ? fail(bhttp::error::header_limit) : Status::need_more;
    }
    if (end > max_header_bytes_) {
      return fail(bhttp::error::header_limit);
    }
    head_end_ = end;
    head_at_ = buffer_.data();
    if (head_.framing == BodyFraming::length && head_.content_length > max_body_bytes_) {
      return fail(bhttp::error::body_limit);
    }
  }
  switch (head_.framing) {
    case BodyFraming::none:
    case BodyFraming::until_close:
      break;
    case BodyFraming::length:
      if (buffer_.size() < head_end_ + head_.content_length) {
        return Status::need_more;
      }
      break;
    case BodyFraming::chunked: {
      // Decoded bytes go where the framing was: the body stays contiguous after the head and
      // whatever follows it moves down.
      char* raw = buffer_.data() + head_end_ + body_size_;
      const std::size_t available = buffer_.size() - head_end_ - body_size_;
      const auto step = chunked_.decode(raw, available, raw);
      if (step.error) {
        return fail(step.error);
      }
      std::memmove(raw + step.produced, raw + step.consumed, available - step.consumed);
      buffer_.shrink(step.consumed - step.produced);
      body_size_ += step.produced;
      if (body_size_ > max_body_bytes_) {
        return fail(bhttp::error::body_limit);
      }
      if (!chunked_.done()) {
        return Status::need_more;
      }
      break;
    }
  }
  repoint_head();
  return Status::complete;
}

void RequestReader::repoint_head() {
  if (head_at_ != buffer_.data()) {  // the data moved: point the head's views at its new place
    head_.move_views(head_at_, buffer_.data(), head_end_);
    head_at_ = buffer_.data();
  }
}

bool RequestReader::pipelined() const {
  return buffer_.size() > head_end_ + body().size();
}

std::span<char> RequestReader::spare(std::size_t bytes) {
  const std::span<char> room = buffer_.prepare(bytes);
  repoint_head();
  return room;
}

std::string_view RequestReader::body() const {
  const std::size_t size = head_.framing == BodyFraming::chunked  ? body_size_
                           : head_.framing == BodyFraming::length ? static_cast<std::size_t>(head_.content_length)
                                                                  : 0;
  return {buffer_.data() + head_end_, size};
}

void RequestReader::next(bool read_in_flight) {
  buffer_.consume(head_end_ + body().size(), read_in_flight);
  head_.clear();
  head_at_ = nullptr;
  scanned_ = head_end_ = body_size_ = 0;
  chunked_.reset();
}

}  // namespace infergate::http
