// An upstream's event stream as the gateway relays it, as the Chat Completions API's chunks or the
// Responses API's typed events: what the client receives, the usage and the count of text events
// must not depend on where the reads cut the stream; and the glances
// that pick the usual events out of it (16, 32 and 64 bytes at a time, in one pass or two) must
// agree with the plain readings they stand in for.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "gateway/sse_relay.hpp"
#include "openai/chunk_glance.hpp"

namespace {

using infergate::fuzz::check;
using infergate::gateway::EventDialect;
namespace openai = infergate::openai;

struct Relayed {
  std::string sent;
  std::string usage;
  std::int64_t text_events = 0;
  std::int64_t first_token_ns = 0;
};

Relayed relay(const std::vector<std::string_view>& reads, bool strip_usage, EventDialect dialect) {
  infergate::gateway::SseRelay relay(strip_usage, dialect);
  Relayed out;
  const auto take = [&] {
    for (const std::string_view piece : relay.pieces()) {
      out.sent.append(piece);
    }
  };
  // As the proxy does: the last read's pieces are taken after finish(), which adds to them.
  for (std::size_t i = 0; i < reads.size(); ++i) {
    relay.feed(reads[i], 1);
    if (i + 1 < reads.size()) {
      take();
    }
  }
  relay.finish(1);
  take();
  if (const auto& usage = relay.usage()) {
    out.usage = std::to_string(usage->prompt_tokens) + "/" + std::to_string(usage->completion_tokens);
  }
  out.text_events = relay.text_events();
  out.first_token_ns = relay.first_token_ns();
  return out;
}

bool same(openai::ChunkGlance a, openai::ChunkGlance b) {
  return a.text == b.text && a.needs_parse == b.needs_parse;
}

bool same(const openai::LineGlance& a, const openai::LineGlance& b) {
  return same(a.glance, b.glance) && a.line_end == b.line_end;
}

bool same(const openai::EventRun& a, const openai::EventRun& b) {
  return a.end == b.end && a.text_events == b.text_events && a.parse_last == b.parse_last &&
         a.last_begin == b.last_begin && a.last_data == b.last_data;
}

void glances_agree(std::string_view bytes) {
  const auto plain = openai::glance_stream_chunk_scalar(bytes);
  check(same(openai::glance_stream_chunk_16(bytes), plain), "the 16-byte glance differs from the plain one");
  if (openai::glance_has_32_byte_blocks()) {
    check(same(openai::glance_stream_chunk_32(bytes), plain), "the 32-byte glance differs from the plain one");
  }
  if (openai::glance_has_64_byte_blocks()) {
    check(same(openai::glance_stream_chunk_64(bytes), plain), "the 64-byte glance differs from the plain one");
  }
  check(same(openai::glance_stream_chunk(bytes), plain), "the glance in use differs from the plain one");
  check(same(openai::glance_stream_line(bytes), openai::glance_stream_line_two_passes(bytes)),
        "the one-pass line glance differs from the two-pass one");
  check(same(openai::glance_event_run(bytes), openai::glance_event_run_two_passes(bytes)),
        "the one-pass event run differs from the two-pass one");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = infergate::fuzz::split_seed(data, size);
  glances_agree(input.bytes);
  const auto reads = infergate::fuzz::cut(input.bytes, input.seed);
  for (const auto dialect : {EventDialect::choices, EventDialect::responses}) {
    for (const bool strip_usage : {false, true}) {
      const Relayed whole = relay({input.bytes}, strip_usage, dialect);
      const Relayed cut = relay(reads, strip_usage, dialect);
      check(whole.sent == cut.sent, "what the client receives depends on where the reads cut the stream");
      check(whole.usage == cut.usage, "the usage depends on where the reads cut the stream");
      check(whole.text_events == cut.text_events, "the text events depend on where the reads cut the stream");
      check(whole.first_token_ns == cut.first_token_ns, "the first token depends on where the reads cut the stream");
      if (!strip_usage || dialect == EventDialect::responses) {  // a Responses stream has nothing to strip
        // All of the stream, and at most the blank line that ends an event the stream left open.
        const std::string_view sent(whole.sent);
        check(sent.substr(0, input.bytes.size()) == input.bytes && sent.size() - input.bytes.size() <= 2 &&
                  sent.find_first_not_of("\r\n", input.bytes.size()) == std::string_view::npos,
              "a relay that removes nothing changed the stream");
      }
    }
  }
  return 0;
}
