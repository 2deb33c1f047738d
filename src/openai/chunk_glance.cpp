#include "openai/chunk_glance.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/cpu_features.hpp"
#include "http/line_break.hpp"

namespace infergate::openai {

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
      return is(key, "text") || is(key, "name") ? KeyKind::text : KeyKind::other;
    case 5:
      return is(key, "usage") || is(key, "error") ? KeyKind::parse : KeyKind::other;
    case 6:
      return is(key, "x_groq") ? KeyKind::parse : KeyKind::other;
    case 7:
      return is(key, "content") ? KeyKind::text : KeyKind::other;
    case 9:
      return is(key, "reasoning") || is(key, "arguments") ? KeyKind::text : KeyKind::other;
    case 15:
      return is(key, "infergate_trace") ? KeyKind::parse : KeyKind::other;
    case 17:
      return is(key, "reasoning_content") ? KeyKind::text : KeyKind::other;
    default:
      return KeyKind::other;
  }
}

// What the value after `colon` of a key of `kind` says.
void glance_value(KeyKind kind, const char* colon, const char* end, ChunkGlance& g) {
  if (kind == KeyKind::other || (kind == KeyKind::text && g.text)) {
    return;
  }
  const char* value = colon + 1;
  while (value < end && *value == ' ') {
    ++value;
  }
  if (kind == KeyKind::parse) {
    // Asked for usage (the gateway always asks), OpenAI puts "usage":null in every chunk before
    // the last: only a value worth reading needs the parse.
    g.needs_parse = g.needs_parse || end - value < 4 || std::memcmp(value, "null", 4) != 0;
  } else {
    // A line's glance may be given an `end` past the line: its break ends the value too.
    g.text = end - value >= 2 && value[0] == '"' && value[1] != '"' && value[1] != '\n' && value[1] != '\r';
  }
}

void glance_key(const char* open, const char* colon, const char* end, ChunkGlance& g) {
  glance_value(key_kind(open + 1, static_cast<std::size_t>(colon - 1 - (open + 1))), colon, end, g);
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
  // memchr must not be given the null pointer of an empty view, even for no bytes.
  for (const char* colon = begin;
       colon != end && (colon = static_cast<const char*>(std::memchr(colon, ':', end - colon))); ++colon) {
    if (colon - begin >= 2 && colon[-1] == '"') {
      glance_key_before(begin, end, colon, g);
    }
  }
  return g;
}

namespace {

// Where a block of bytes holds quotes, colons, and the letters a key of interest ends in: text,
// content, reasoning_content (t), usage, infergate_trace, name (e), error (r), x_groq (q),
// reasoning (g), arguments (s). A tool call's name and arguments are generated text, as
// openai::parse_stream_chunk counts them: an agent's turn may stream nothing else. Bit i stands
// for byte i of the block.
template <class Mask>
struct BlockMasks {
  Mask quotes = 0;
  Mask colons = 0;
  Mask key_ends = 0;
};

// Two keys of every chat chunk end in s (choices, logprobs), as arguments does, but not after a t.
// Where blocks are narrower than 64 bytes they are passed over at once when found, before any look
// at their key (`colon` follows the key's quote): fewer instructions than telling them apart in
// every block (bench/gateway_instructions.py). In 64 bytes a block's masks tell them apart, in
// less time than the look at each took (BM_Glance): of the bytes that are s, those after a t, and
// the block's first (whose byte before is another block's: a key looked at in vain costs time, a
// key missed the answer).
inline bool s_not_after_t(const char* begin, const char* colon) {
  return colon[-2] == 's' && (colon - begin < 3 || colon[-3] != 't');
}

inline std::uint64_t s_after_t(std::uint64_t s, std::uint64_t t) {
  return s & ((t << 1) | 1);
}

// The keys of one block of `Width` bytes at `p` that may be of interest: each colon right after a
// quote, two bytes after a letter a key of interest ends in. `carried` is the previous block's
// masks (a colon early in this block may close a key of the last one); it becomes this block's.
template <int Width, class Mask>
void glance_block(const BlockMasks<Mask>& m, BlockMasks<Mask>& carried, const char* p, const char* begin,
                  const char* end, ChunkGlance& g) {
  const Mask quote_before = static_cast<Mask>(m.quotes << 1) | static_cast<Mask>(carried.quotes >> (Width - 1));
  const Mask end_two_before = static_cast<Mask>(m.key_ends << 2) | static_cast<Mask>(carried.key_ends >> (Width - 2));
  for (Mask hits = m.colons & quote_before & end_two_before; hits != 0; hits &= hits - 1) {
    const int at = std::countr_zero(hits);  // the colon; its key's closing quote is at at - 1
    if (s_not_after_t(begin, p + at)) {
      continue;
    }
    const Mask below = at >= 2 ? m.quotes & ((Mask{1} << (at - 1)) - 1) : 0;
    if (below != 0) {
      glance_key(p + (std::bit_width(below) - 1), p + at, end, g);
    } else {
      glance_key_before(begin, end, p + at, g);  // the key began in an earlier block
    }
  }
  carried = m;
}

#if defined(__x86_64__)
// The letters a key of interest ends in each have a low half of their own (q 1, r 2, s 3, t 4,
// e 5, g 7): a byte is one of them when it equals the entry of this table that its low half picks
// (a byte over 127 picks zero; the other entries match no byte that picks them). A shuffle and a
// comparison instead of six comparisons. The shuffles look up within each 16 bytes: the table is
// repeated for every width's lanes. Two keys of every chat chunk end in s too (choices,
// logprobs): with 32 bytes at a time they are passed over where they are found (s_not_after_t);
// with 64 their s is told apart in the block's masks (s_after_t), and the table leaves it out.
template <bool WithS>
constexpr std::array<char, 64> key_end_letters() {
  std::array<char, 64> table{};
  for (std::size_t lane = 0; lane < table.size(); lane += 16) {
    table[lane] = -128;
    table[lane + 1] = 'q';
    table[lane + 2] = 'r';
    table[lane + 3] = WithS ? 's' : 0;
    table[lane + 4] = 't';
    table[lane + 5] = 'e';
    table[lane + 7] = 'g';
  }
  return table;
}
alignas(64) constexpr std::array<char, 64> kKeyEndLetters = key_end_letters<true>();
alignas(64) constexpr std::array<char, 64> kKeyEndLettersButS = key_end_letters<false>();

// Keys of interest by the eight bytes that end them (little-endian, the key's last letter in the
// top byte): a short name with its opening quote, the last eight letters of a long one.
struct KeyEndings {
  alignas(64) std::array<std::uint64_t, 8> bytes{};
  alignas(64) std::array<std::uint64_t, 8> masks{};
  // A short name's whole, opening quote included, is in its ending: its kind is known. A long
  // one's start is still to be checked.
  std::array<bool, 8> whole{};
  std::array<KeyKind, 8> kind{};
};
struct KeyOfInterest {
  std::string_view name;
  KeyKind kind;
};
constexpr std::array<KeyOfInterest, 8> kKeysOfInterest = {{{"text", KeyKind::text},
                                                           {"usage", KeyKind::parse},
                                                           {"error", KeyKind::parse},
                                                           {"x_groq", KeyKind::parse},
                                                           {"content", KeyKind::text},
                                                           {"reasoning", KeyKind::text},
                                                           {"infergate_trace", KeyKind::parse},
                                                           {"reasoning_content", KeyKind::text}}};
constexpr KeyEndings kKeyEndings = [] {
  KeyEndings e;
  for (std::size_t lane = 0; lane < kKeysOfInterest.size(); ++lane) {
    const std::string_view name = kKeysOfInterest[lane].name;
    const std::size_t quoted = name.size() + 1;  // the name after its opening quote
    for (std::size_t i = quoted - std::min<std::size_t>(quoted, 8); i < quoted; ++i) {
      const auto byte = static_cast<std::uint64_t>(static_cast<unsigned char>(i == 0 ? '"' : name[i - 1]));
      e.bytes[lane] |= byte << (8 * (8 - quoted + i));
      e.masks[lane] |= std::uint64_t{0xff} << (8 * (8 - quoted + i));
    }
    e.whole[lane] = quoted <= 8;
    e.kind[lane] = kKeysOfInterest[lane].kind;
  }
  return e;
}();

// glance_block for 64 bytes: a key is told by the eight bytes that end it, compared with the eight
// endings of interest at once, instead of by finding its opening quote and its length.
__attribute__((target("avx512bw"))) inline void glance_block_64(const BlockMasks<std::uint64_t>& m,
                                                                BlockMasks<std::uint64_t>& carried, const char* p,
                                                                const char* begin, const char* end, ChunkGlance& g) {
  const std::uint64_t quote_before = (m.quotes << 1) | (carried.quotes >> 63);
  const std::uint64_t end_two_before = (m.key_ends << 2) | (carried.key_ends >> 62);
  for (std::uint64_t hits = m.colons & quote_before & end_two_before; hits != 0; hits &= hits - 1) {
    const char* colon = p + std::countr_zero(hits);
    if (colon - begin < 9) {
      glance_key_before(begin, end, colon, g);
      continue;
    }
    std::uint64_t ending;
    std::memcpy(&ending, colon - 9, sizeof ending);
    const __m512i endings = _mm512_and_si512(_mm512_set1_epi64(static_cast<long long>(ending)),
                                             _mm512_load_si512(kKeyEndings.masks.data()));
    const __mmask8 match = _mm512_cmpeq_epi64_mask(endings, _mm512_load_si512(kKeyEndings.bytes.data()));
    if (match == 0) {
      // A tool call's keys fill no lane (the eight are taken): a key that may be one is looked at
      // whole. They end in e, as name does, or in s after a t, as arguments does.
      const auto last = static_cast<char>(ending >> 56);
      if (last == 'e' || (last == 's' && static_cast<char>(ending >> 48) == 't')) {
        glance_key_before(begin, end, colon, g);
      }
      continue;
    }
    const int lane = std::countr_zero(match);
    if (kKeyEndings.whole[lane]) {
      glance_value(kKeyEndings.kind[lane], colon, end, g);
    } else {
      glance_key_before(begin, end, colon, g);
    }
  }
  carried = m;
}

// With `ToLineEnd`, the glance stops at the first CR or LF and says where it is: a line's end found
// in the same pass, one more comparison per block, instead of a pass of its own.
template <bool ToLineEnd>
__attribute__((target("avx512bw"), flatten)) LineGlance glance_64(std::string_view data) {
  LineGlance line;
  const char* begin = data.data();
  const char* end = begin + data.size();
  const __m512i key_ends = _mm512_load_si512(kKeyEndLettersButS.data());
  BlockMasks<std::uint64_t> carried;
  for (const char* p = begin; p < end; p += 64) {
    // The last bytes through a masked load: the lanes past the end read as zeros (which match
    // nothing) and are not touched, so no read goes past the end.
    const auto left = static_cast<std::size_t>(end - p);
    const __mmask64 valid = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    const __m512i bytes = _mm512_maskz_loadu_epi8(valid, p);
    BlockMasks<std::uint64_t> m{_mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8('"')),
                                _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(':')),
                                _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(key_ends, bytes), bytes) |
                                    s_after_t(_mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8('s')),
                                              _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8('t')))};
    if constexpr (ToLineEnd) {
      // One comparison finds the bytes up to CR (LF among them); the few others there (a tab,
      // say) are passed over one by one.
      std::uint64_t low = _mm512_mask_cmple_epu8_mask(valid, bytes, _mm512_set1_epi8('\r'));
      while (low != 0 && p[std::countr_zero(low)] != '\n' && p[std::countr_zero(low)] != '\r') {
        low &= low - 1;
      }
      if (low != 0) {
        const int at = std::countr_zero(low);
        m.colons &= (std::uint64_t{1} << at) - 1;
        glance_block_64(m, carried, p, begin, p + at, line.glance);
        line.line_end = static_cast<std::size_t>(p + at - begin);
        return line;
      }
    }
    glance_block_64(m, carried, p, begin, end, line.glance);
  }
  return line;
}

__attribute__((target("avx512bw"), flatten)) ChunkGlance glance_64_chunk(std::string_view data) {
  return glance_64<false>(data).glance;
}

// The masks of the block of `Width` bytes at `p`, from `load(q)`, the masks of the `Width` bytes at
// `q`. The last bytes, when fewer than a block, are read as the last whole block of the data
// (bytes already looked at shifted out) or, in data shorter than a block, from a copy padded
// with zeros (which match nothing): no read goes past the end either way.
template <int Width, class Mask, class Load>
BlockMasks<Mask> block_at(const char* p, const char* begin, const char* end, Load load) {
  if (end - p >= Width) {
    return load(p);
  }
  if (end - begin >= Width) {
    const auto behind = static_cast<int>(Width - (end - p));
    const BlockMasks<Mask> m = load(end - Width);
    return {static_cast<Mask>(m.quotes >> behind), static_cast<Mask>(m.colons >> behind),
            static_cast<Mask>(m.key_ends >> behind)};
  }
  alignas(Width) char tail[Width] = {};
  std::memcpy(tail, p, static_cast<std::size_t>(end - p));
  return load(tail);
}

template <int Width, class Mask, class Load>
ChunkGlance glance_blocks(std::string_view data, Load load) {
  ChunkGlance g;
  const char* begin = data.data();
  const char* end = begin + data.size();
  BlockMasks<Mask> carried;
  for (const char* p = begin; p < end; p += Width) {
    glance_block<Width>(block_at<Width, Mask>(p, begin, end, load), carried, p, begin, end, g);
  }
  return g;
}

__attribute__((target("avx2"), flatten)) ChunkGlance glance_32(std::string_view data) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i colon = _mm256_set1_epi8(':');
  const __m256i key_ends = _mm256_load_si256(reinterpret_cast<const __m256i*>(kKeyEndLetters.data()));
  return glance_blocks<32, std::uint32_t>(
      data, [&](const char* q) __attribute__((target("avx2"))) {
        const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
        const __m256i ends = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(key_ends, bytes), bytes);
        return BlockMasks<std::uint32_t>{
            static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, quote))),
            static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, colon))),
            static_cast<std::uint32_t>(_mm256_movemask_epi8(ends))};
      });
}

__attribute__((flatten)) ChunkGlance glance_16(std::string_view data) {
  return glance_blocks<16, unsigned>(data, [](const char* q) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const auto is = [&bytes](char c) { return _mm_cmpeq_epi8(bytes, _mm_set1_epi8(c)); };
    const __m128i ends =
        _mm_or_si128(_mm_or_si128(_mm_or_si128(is('t'), is('e')), _mm_or_si128(is('r'), is('q'))), is('g'));
    return BlockMasks<unsigned>{static_cast<unsigned>(_mm_movemask_epi8(is('"'))),
                                static_cast<unsigned>(_mm_movemask_epi8(is(':'))),
                                static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(ends, is('s'))))};
  });
}
#endif

}  // namespace

bool glance_has_64_byte_blocks() {
  return cpu_has_avx512bw();
}

bool glance_has_32_byte_blocks() {
  return cpu_has_avx2();
}

ChunkGlance glance_stream_chunk_16(std::string_view data) {
#if defined(__x86_64__)
  return glance_16(data);
#else
  return glance_stream_chunk_scalar(data);
#endif
}

ChunkGlance glance_stream_chunk_32(std::string_view data) {
#if defined(__x86_64__)
  static const bool supported = glance_has_32_byte_blocks();
  if (supported) {
    return glance_32(data);
  }
#endif
  return glance_stream_chunk_16(data);
}

ChunkGlance glance_stream_chunk_64(std::string_view data) {
#if defined(__x86_64__)
  static const bool supported = glance_has_64_byte_blocks();
  if (supported) {
    return glance_64_chunk(data);
  }
#endif
  return glance_stream_chunk_32(data);
}

namespace {

using Glance = ChunkGlance (*)(std::string_view);
using LineGlancer = LineGlance (*)(std::string_view);

// Past the line break at `at` (CR, LF or CRLF); npos for a CR that ends the bytes, since the LF
// that may follow in the next read would belong to it.
std::size_t past_break(std::string_view bytes, std::size_t at) {
  if (bytes[at] == '\n') {
    return at + 1;
  }
  if (at + 1 == bytes.size()) {
    return std::string_view::npos;
  }
  return bytes[at + 1] == '\n' ? at + 2 : at + 1;
}

// The run with each data line glanced by `GlanceLine`. A call per line: the glance inlined into
// the loop measured slower (bench/sse_parser_benchmark.cpp, BM_GlanceRun).
template <LineGlance (*GlanceLine)(std::string_view)>
EventRun event_run(std::string_view bytes) {
  constexpr std::string_view kData = "data:";
  EventRun run;
  for (std::size_t event = 0;;) {
    if (bytes.size() - event < kData.size() || std::memcmp(bytes.data() + event, kData.data(), kData.size()) != 0) {
      return run;
    }
    std::size_t value = event + kData.size();
    value += value < bytes.size() && bytes[value] == ' ' ? 1 : 0;
    const LineGlance line = GlanceLine(bytes.substr(value));
    if (line.line_end == std::string_view::npos) {
      return run;
    }
    const std::size_t blank = past_break(bytes, value + line.line_end);
    if (blank >= bytes.size() || (bytes[blank] != '\n' && bytes[blank] != '\r')) {
      return run;  // cut short, or a line of the event follows
    }
    const std::size_t next = past_break(bytes, blank);
    if (next == std::string_view::npos) {
      return run;
    }
    run.text_events += line.glance.text ? 1 : 0;
    run.end = next;
    if (line.glance.needs_parse) {
      run.parse_last = true;
      run.last_begin = event;
      run.last_data = bytes.substr(value, line.line_end);
      return run;
    }
    event = next;
  }
}

using EventRunner = EventRun (*)(std::string_view);

// Chosen once, when the program loads: asking the CPU on every event cost as much as a block.
#if defined(__x86_64__)
const Glance kWidestGlance = cpu_has_avx512bw() ? glance_64_chunk : cpu_has_avx2() ? glance_32 : glance_16;
const LineGlancer kLineGlance = cpu_has_avx512bw() ? glance_64<true> : glance_stream_line_two_passes;
const EventRunner kEventRun = cpu_has_avx512bw() ? event_run<glance_64<true>> : glance_event_run_two_passes;
#else
const Glance kWidestGlance = glance_stream_chunk_scalar;
const LineGlancer kLineGlance = glance_stream_line_two_passes;
const EventRunner kEventRun = glance_event_run_two_passes;
#endif

}  // namespace

// One pass over the keys (every `"name":`), instead of a search per key of interest: this runs for
// every event a proxy forwards. A block of bytes at a time finds each quote followed by a colon
// whose key ends in a letter that a key of interest ends in; only those few keys are looked at.
// The scalar search above (a memchr per colon, every key looked at) cost a fifth of a streaming
// proxy's user time; sixteen bytes at a time, a seventh. Wider blocks (AVX2's 32 bytes,
// AVX-512BW's 64, where the CPU has them) take two or four times fewer steps over a chat chunk of
// 150 to 250 bytes.
ChunkGlance glance_stream_chunk(std::string_view data) {
  return kWidestGlance(data);
}

LineGlance glance_stream_line_two_passes(std::string_view line) {
  LineGlance g;
  g.line_end = http::first_line_break(line);
  g.glance = glance_stream_chunk(line.substr(0, g.line_end));
  return g;
}

LineGlance glance_stream_line(std::string_view line) {
  return kLineGlance(line);
}

EventRun glance_event_run(std::string_view bytes) {
  return kEventRun(bytes);
}

EventRun glance_event_run_two_passes(std::string_view bytes) {
  return event_run<glance_stream_line_two_passes>(bytes);
}

}  // namespace infergate::openai
