#pragma once
// The token usage of a non-streamed response, read as the body passes through a proxy, piece by
// piece, without keeping the body or parsing it into a DOM. Only the top-level "usage" object (or
// Groq's "x_groq": {"usage"}) is kept and parsed; everything else is skipped by a small state
// machine that knows strings, escapes and nesting. A body of any size costs one pass and no
// allocation beyond the usage object itself. A body whose first piece holds all of it (most
// answers that are not long) is read member by member instead, passing over each member's value
// by the body's marks (openai/json_marks.hpp) without the state machine's bookkeeping between
// bytes; both readings agree on every body.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "openai/stream_chunk.hpp"

namespace infergate::openai {

class UsageScanner {
 public:
  void feed(std::string_view bytes);

  // True once a whole top-level JSON object has gone by (the body was an object, not an error page).
  [[nodiscard]] bool complete_object() const { return state_ == State::done; }

  // The usage, once the object is complete and carried one.
  [[nodiscard]] std::optional<Usage> usage() const;

 private:
  enum class State { start, object, done, not_object };
  enum class Member { other, usage, x_groq };

  // The text of one member's object value. A value that arrives in one piece is parsed where it
  // lies; only one split across pieces is copied.
  struct Capture {
    std::string text;
    std::optional<Usage> usage;
  };

  bool read_whole(std::string_view bytes);
  void on_char(char c);
  const char* skip_string(const char* p, const char* end);
  void skip_nested(const char*& p, const char* end, const char*& captured);
  void read_key(const char* from, const char* to);
  Capture& capture(Member member) { return member == Member::usage ? usage_ : groq_; }
  void append_capture(Member member, const char* from, const char* to);
  void end_capture(Member member, const char* from, const char* to);

  State state_ = State::start;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  bool expect_key_ = false;   // the next string at depth 1 names a member
  bool reading_key_ = false;  // inside that string
  // The name's first bytes; one longer than any name of interest is marked by key_size_ past them.
  char key_[8] = {};
  std::size_t key_size_ = 0;
  Member pending_ = Member::other;  // the member whose value comes next
  Member capturing_ = Member::other;
  Capture usage_;
  Capture groq_;
};

}  // namespace infergate::openai
