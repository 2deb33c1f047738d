#pragma once
// The body the gateway sends upstream: the client's bytes with at most two edits (usage asked for,
// the model renamed), held as views of the client's bytes around the edits so that neither edit
// copies the body of a usual request. Nothing is re-serialised.
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace infergate::openai {

class OutgoingBody {
 public:
  // `body` is the client's request body, a JSON object; it must outlive this and its pieces.
  explicit OutgoingBody(std::string_view body) : body_(body) {}
  // Pinned: a piece may be a view of model_ or rewritten_.
  OutgoingBody(const OutgoingBody&) = delete;
  OutgoingBody& operator=(const OutgoingBody&) = delete;

  // Asks for the usage chunk. Where the body has no top-level "stream_options", adds
  // "stream_options":{"include_usage":true} after the opening brace. Otherwise sets include_usage
  // to true in each of them (one that is not an object, such as null, becomes
  // {"include_usage":true}), which copies the body. `stream_options_members`: how many the body
  // holds, as the request view counted them.
  void request_usage(int stream_options_members = 0);
  // Replaces the value of the top-level "model" with `model`: of each, where the body repeats the
  // member, and also where it spells the name with escapes. `members`: how many the body holds, as
  // the request view counted them (model_members). False, and nothing changed, when the body has
  // no top-level "model" that is a string.
  bool rename_model(std::string_view model, int members = 1);

  // The bytes to send, in order.
  [[nodiscard]] std::span<const std::string_view> pieces() const { return {pieces_.data(), count_}; }
  [[nodiscard]] std::size_t size() const;
  // The pieces joined (a copy): for tests and error messages.
  [[nodiscard]] std::string joined() const;

 private:
  void assemble();

  std::string_view body_;
  std::size_t brace_ = std::string_view::npos;  // after which the usage request goes
  std::string_view usage_;                      // the text spliced in there, if any
  std::size_t model_begin_ = 0;                 // the value replaced, if model_ is set
  std::size_t model_end_ = 0;
  std::string model_;  // the new value, as JSON
  // The body with every model renamed, where it holds more than one (body_ then views it).
  std::string rewritten_;
  std::array<std::string_view, 5> pieces_{body_};
  std::size_t count_ = 1;
};

}  // namespace infergate::openai
