#pragma once
// What the handlers of Boost.JSON's validating parser here have in common (the request view, the
// usage of a body, the usage of a stream's chunk): no size limits of the parser's own, the
// document and comment events none of them needs, and each member's name, kept while it arrives
// in parts.
#include <boost/json/error.hpp>
#include <boost/json/string_view.hpp>
#include <boost/system/error_code.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>

namespace infergate::openai {

// A member name, given in parts, in a fixed buffer: a name longer than N bytes is of no interest
// to the handler that keeps it, and reads as empty.
template <std::size_t N>
class MemberName {
 public:
  void append(boost::json::string_view part) {
    const std::size_t n = std::min(part.size(), N - size_);
    std::memcpy(bytes_ + size_, part.data(), n);
    size_ += n;
    too_long_ = too_long_ || n < part.size();
  }
  // The name (empty when it was too long), and the buffer emptied for the next one.
  std::string_view take() {
    const std::string_view name = too_long_ ? std::string_view() : std::string_view(bytes_, size_);
    size_ = 0;
    too_long_ = false;
    return name;
  }

 private:
  char bytes_[N] = {};
  std::size_t size_ = 0;
  bool too_long_ = false;
};

class JsonHandlerBase {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);
  using error_code = boost::system::error_code;

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_comment_part(boost::json::string_view, error_code&) { return true; }
  bool on_comment(boost::json::string_view, error_code&) { return true; }
  bool on_key_part(boost::json::string_view part, std::size_t, error_code&) {
    name_.append(part);
    return true;
  }

 protected:
  // In on_key: the member's whole name, its last part given; empty for a name of over 24 bytes,
  // longer than any a handler here reads.
  std::string_view member_name(boost::json::string_view last_part) {
    name_.append(last_part);
    return name_.take();
  }

 private:
  MemberName<24> name_;
};

// Feeds all of `text` to `parser` (a boost::json::basic_parser of one of the handlers here) as one
// document: an error unless it is one JSON value with nothing after it. `consumed`: how far the
// parser got, for an error's position.
template <class Parser>
boost::system::error_code parse_whole(Parser& parser, std::string_view text, std::size_t& consumed) {
  boost::system::error_code ec;
  consumed = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && consumed < text.size()) {
    ec = boost::json::error::extra_data;
  }
  return ec;
}

}  // namespace infergate::openai
