// What a client sends the gateway, read as a server connection reads it: requests one after
// another (pipelined), heads and bodies of any framing, arriving in one piece or cut anywhere.
// Every cutting must give the same requests (heads, bodies and what the request view reads of
// them) and end the same way, but for one difference: a head still incomplete may be refused for
// a part that is wrong already or left to be judged once complete, depending on what had arrived
// at the reader's first look (a head that trickles in is not parsed again for each piece).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "http/request_reader.hpp"
#include "openai/request_view.hpp"

namespace {

using infergate::fuzz::check;
using infergate::http::RequestReader;

enum class Ending { complete, incomplete, refused, full };

struct Reading {
  std::string requests;  // each complete request, written down
  Ending ending = Ending::complete;
};

void write_down(const RequestReader& reader, std::string& out) {
  const auto& head = reader.head();
  out.append(head.method).append(" ").append(head.target).append(" 1.").append(std::to_string(head.minor_version));
  for (const auto& field : head.fields) {
    out.append("\n").append(field.name).append(": ").append(field.value);
  }
  out.append("\nframing ").append(std::to_string(static_cast<int>(head.framing)));
  out.append(" length ").append(std::to_string(head.content_length));
  out.append(head.keep_alive ? " keep-alive" : " close").append(head.expect_continue ? " continue" : "");
  out.append("\nbody ").append(std::to_string(reader.body().size())).append(":").append(reader.body());
  infergate::openai::RequestView view;
  const auto error = infergate::openai::parse_request_view(reader.body(), view);
  if (error) {
    out.append("\nview refused: ").append(error->message);
  } else {
    out.append("\nview ").append(view.model).append(view.stream ? " stream" : "");
    out.append(view.include_usage ? " usage" : "");
    out.append(" max ").append(view.max_tokens ? std::to_string(*view.max_tokens) : "-");
    out.append(" prompt ").append(std::to_string(view.prompt_tokens_estimate));
  }
  out.append("\n\n");
}

Reading read_requests(const std::vector<std::string_view>& pieces) {
  // Small limits, so that inputs of a few kilobytes reach them.
  RequestReader reader(1024, 4096, 256);
  Reading reading;
  bool anything = false;
  for (std::string_view left : pieces) {
    while (!left.empty()) {
      const std::span<char> room = reader.prepare();
      if (room.empty()) {
        reading.ending = Ending::full;
        return reading;
      }
      const std::size_t n = std::min(room.size(), left.size());
      std::memcpy(room.data(), left.data(), n);
      reader.commit(n);
      left.remove_prefix(n);
      anything = true;
      for (;;) {
        const auto status = reader.advance();
        if (status == RequestReader::Status::need_more) {
          break;
        }
        if (status == RequestReader::Status::failed) {
          reading.ending = Ending::refused;
          return reading;
        }
        write_down(reader, reading.requests);
        reader.next();
      }
    }
  }
  reading.ending = anything && reader.got_some() ? Ending::incomplete : Ending::complete;
  return reading;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = infergate::fuzz::split_seed(data, size);
  const Reading whole = read_requests({input.bytes});
  const Reading cut = read_requests(infergate::fuzz::cut(input.bytes, input.seed));
  check(whole.requests == cut.requests, "the requests read depend on where the bytes were cut");
  const auto open_or_refused = [](Ending e) { return e == Ending::incomplete || e == Ending::refused; };
  check(whole.ending == cut.ending || (open_or_refused(whole.ending) && open_or_refused(cut.ending)),
        "how the reading ended depends on where the bytes were cut");
  return 0;
}
