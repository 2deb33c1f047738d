#include "openai/stream_chunk.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <boost/json.hpp>

#include <cstring>

namespace infergate::openai {

namespace json = boost::json;

namespace {

std::size_t string_size(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  return v != nullptr && v->is_string() ? v->get_string().size() : 0;
}

std::int64_t int_field(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  if (v == nullptr) {
    return 0;
  }
  if (v->is_int64()) {
    return v->get_int64();
  }
  if (v->is_uint64()) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  return 0;
}

void read_usage(const json::object& object, ChunkView& out) {
  const json::value* usage = object.if_contains("usage");
  if (usage == nullptr || !usage->is_object()) {
    // Groq reports usage under x_groq.usage on the last chunk.
    if (const auto* groq = object.if_contains("x_groq"); groq && groq->is_object()) {
      usage = groq->get_object().if_contains("usage");
    }
  }
  if (usage != nullptr && usage->is_object()) {
    const auto& u = usage->get_object();
    out.usage = Usage{int_field(u, "prompt_tokens"), int_field(u, "completion_tokens")};
  }
}

void read_trace(const json::object& object, ChunkView& out) {
  const auto* trace = object.if_contains("infergate_trace");
  if (trace != nullptr && trace->is_object()) {
    const auto& t = trace->get_object();
    out.trace = ServerTrace{int_field(t, "arrival_ns"), int_field(t, "first_token_ns"), int_field(t, "last_token_ns")};
  }
}

void append_string(const json::object& object, std::string_view key, std::string* content) {
  if (const auto* v = object.if_contains(key); content != nullptr && v != nullptr && v->is_string()) {
    content->append(v->get_string());
  }
}

std::optional<std::string> read_object(std::string_view text, bool streamed, ChunkView& out, std::string* content) {
  out = ChunkView{};
  // Chunks are small: parse into a stack buffer instead of the heap (this runs once per token).
  unsigned char scratch[4096];
  json::monotonic_resource resource(scratch, sizeof(scratch));
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec, &resource);
  if (ec) {
    return "not valid JSON (" + ec.message() + ")";
  }
  if (!parsed.is_object()) {
    return "not a JSON object";
  }
  const auto& object = parsed.get_object();
  if (const auto* error = object.if_contains("error"); error && !error->is_null()) {
    if (error->is_object()) {
      const auto* message = error->get_object().if_contains("message");
      out.error = message && message->is_string() ? std::string(message->get_string()) : json::serialize(*error);
    } else {
      out.error = json::serialize(*error);
    }
    return std::nullopt;
  }
  if (const auto* choices = object.if_contains("choices"); choices && choices->is_array()) {
    out.has_choices = !choices->get_array().empty();
    for (const auto& choice : choices->get_array()) {
      if (!choice.is_object()) {
        continue;
      }
      const auto& c = choice.get_object();
      out.text_bytes += string_size(c, "text");
      append_string(c, "text", content);
      if (const auto* part = c.if_contains(streamed ? "delta" : "message"); part && part->is_object()) {
        const auto& p = part->get_object();
        out.text_bytes += string_size(p, "content") + string_size(p, "reasoning_content") + string_size(p, "reasoning");
        append_string(p, "content", content);
      }
      if (const auto* finish = c.if_contains("finish_reason"); finish && finish->is_string()) {
        out.finish_reason = std::string(finish->get_string());
      }
    }
  }
  read_usage(object, out);
  read_trace(object, out);
  return std::nullopt;
}

}  // namespace

namespace {

// What a key says about its event: the key lies between the quotes at `open` and `colon - 1`.
// Keys are told apart by length first, so that each comparison is of a known size (a load or two,
// not a call to memcmp): most keys of a chunk are of no interest.
enum class KeyKind { other, parse, text };

template <std::size_t N>
bool is(const char* key, const char (&name)[N]) {
  return std::memcmp(key, name, N - 1) == 0;
}

KeyKind key_kind(const char* key, std::size_t size) {
  switch (size) {
    case 4:
      return is(key, "text") ? KeyKind::text : KeyKind::other;
    case 5:
      return is(key, "usage") || is(key, "error") ? KeyKind::parse : KeyKind::other;
    case 6:
      return is(key, "x_groq") ? KeyKind::parse : KeyKind::other;
    case 7:
      return is(key, "content") ? KeyKind::text : KeyKind::other;
    case 9:
      return is(key, "reasoning") ? KeyKind::text : KeyKind::other;
    case 15:
      return is(key, "infergate_trace") ? KeyKind::parse : KeyKind::other;
    case 17:
      return is(key, "reasoning_content") ? KeyKind::text : KeyKind::other;
    default:
      return KeyKind::other;
  }
}

void glance_key(const char* open, const char* colon, const char* end, ChunkGlance& g) {
  const KeyKind kind = key_kind(open + 1, static_cast<std::size_t>(colon - 1 - (open + 1)));
  if (kind == KeyKind::parse) {
    g.needs_parse = true;
  } else if (kind == KeyKind::text && !g.text) {
    const char* value = colon + 1;
    while (value < end && *value == ' ') {
      ++value;
    }
    g.text = end - value >= 2 && value[0] == '"' && value[1] != '"';
  }
}

// The key whose closing quote sits just before `colon`, found by scanning back to its opening one.
void glance_key_before(const char* begin, const char* end, const char* colon, ChunkGlance& g) {
  const char* open = colon - 2;
  while (open >= begin && *open != '"') {
    --open;
  }
  if (open >= begin) {
    glance_key(open, colon, end, g);
  }
}

}  // namespace

ChunkGlance glance_stream_chunk_scalar(std::string_view data) {
  ChunkGlance g;
  const char* begin = data.data();
  const char* end = begin + data.size();
  for (const char* colon = begin; (colon = static_cast<const char*>(std::memchr(colon, ':', end - colon))); ++colon) {
    if (colon - begin >= 2 && colon[-1] == '"') {
      glance_key_before(begin, end, colon, g);
    }
  }
  return g;
}

// One pass over the keys (every `"name":`), instead of a search per key of interest: this runs for
// every event a proxy forwards. Sixteen bytes at a time find each quote followed by a colon; the
// scalar search above (a memchr per colon) cost a fifth of a streaming proxy's user time.
ChunkGlance glance_stream_chunk(std::string_view data) {
#if defined(__SSE2__)
  ChunkGlance g;
  const char* begin = data.data();
  const char* end = begin + data.size();
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i colon = _mm_set1_epi8(':');
  const char* p = begin;
  // The last two quotes before the block: the opening and closing quotes of a key can lie in
  // earlier blocks than its colon.
  const char* last_quote = nullptr;
  const char* prior_quote = nullptr;
  for (; end - p >= 16; p += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const auto quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, quote)));
    const auto colons = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, colon)));
    const unsigned quote_before = last_quote == p - 1 ? 1U : 0U;
    for (unsigned hits = colons & ((quotes << 1) | quote_before); hits != 0; hits &= hits - 1) {
      const int at = __builtin_ctz(hits);  // the colon; its key's closing quote is at at - 1
      const char* open = nullptr;
      if (at == 0) {
        open = prior_quote;
      } else if (const unsigned below = quotes & ((1U << (at - 1)) - 1); below != 0) {
        open = p + (31 - __builtin_clz(below));
      } else {
        open = last_quote;
      }
      if (open != nullptr) {
        glance_key(open, p + at, end, g);
      }
    }
    if (quotes != 0) {
      const int top = 31 - __builtin_clz(quotes);
      const unsigned rest = quotes & ~(1U << top);
      prior_quote = rest != 0 ? p + (31 - __builtin_clz(rest)) : last_quote;
      last_quote = p + top;
    }
  }
  for (; p < end; ++p) {
    if (*p == ':' && p - begin >= 2 && p[-1] == '"') {
      glance_key_before(begin, end, p, g);
    }
  }
  return g;
#else
  return glance_stream_chunk_scalar(data);
#endif
}

std::optional<std::string> parse_stream_chunk(std::string_view data, ChunkView& out, std::string* content) {
  return read_object(data, true, out, content);
}

std::optional<std::string> parse_completion_response(std::string_view body, ChunkView& out, std::string* content) {
  return read_object(body, false, out, content);
}

}  // namespace infergate::openai
