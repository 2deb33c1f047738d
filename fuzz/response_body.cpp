// What an upstream answers, read as the gateway's client reads it: the response head, then a
// chunked body decoded in place, and the usage of a whole answer read as the body passes. The
// decoded body and the usage must not depend on where the reads cut the bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "http/chunked_decoder.hpp"
#include "http/message_head.hpp"
#include "openai/usage_scanner.hpp"

namespace {

using infergate::fuzz::check;

struct Decoded {
  std::string body;
  std::size_t consumed = 0;
  bool done = false;
  bool failed = false;
};

Decoded decode(const std::vector<std::string_view>& reads) {
  infergate::http::ChunkedDecoder decoder;
  Decoded out;
  std::string buffer;
  for (const std::string_view read : reads) {
    buffer.assign(read);
    const auto step = decoder.decode(buffer.data(), buffer.size(), buffer.data());
    out.body.append(buffer.data(), step.produced);
    out.consumed += step.consumed;
    if (step.error) {
      out.failed = true;
      return out;
    }
    if (decoder.done()) {
      out.done = true;
      return out;
    }
  }
  return out;
}

std::string scan_usage(const std::vector<std::string_view>& reads) {
  infergate::openai::UsageScanner scanner;
  for (const std::string_view read : reads) {
    scanner.feed(read);
  }
  std::string out = scanner.complete_object() ? "object" : "not an object";
  if (const auto usage = scanner.usage()) {
    out += " " + std::to_string(usage->prompt_tokens) + "/" + std::to_string(usage->completion_tokens);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = infergate::fuzz::split_seed(data, size);
  const auto reads = infergate::fuzz::cut(input.bytes, input.seed);

  infergate::http::MessageHead head;
  boost::system::error_code ec;
  std::size_t scanned = 0;
  const std::size_t head_size = infergate::http::take_response_head(input.bytes, scanned, false, head, ec);
  const std::string_view body = head_size > 0 ? input.bytes.substr(head_size) : input.bytes;

  const auto body_reads = infergate::fuzz::cut(body, input.seed);
  const Decoded whole = decode({body});
  const Decoded cut = decode(body_reads);
  check(whole.failed == cut.failed, "whether the chunked body is refused depends on where the reads cut it");
  if (!whole.failed) {
    check(whole.body == cut.body, "the decoded body depends on where the reads cut it");
    check(whole.done == cut.done && whole.consumed == cut.consumed,
          "where the chunked body ends depends on where the reads cut it");
  }

  check(scan_usage({input.bytes}) == scan_usage(reads), "the answer's usage depends on where the reads cut it");
  return 0;
}
