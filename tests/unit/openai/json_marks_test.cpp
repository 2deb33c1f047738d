#include "openai/json_marks.hpp"

#include "random_edits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace infergate::openai {
namespace {

// The bytes that matter, and look-alikes: each bracket and brace with its high bit set or its
// 0x20 bit flipped, and bytes either side of the quote and the backslash.
const std::string kAlphabet = std::string("\"\\[]{}") + "\xa2\xdc\xdb\xdd\xfb\xfd" + ";=!#[]a\x7f";

std::string random_text(std::size_t size, std::mt19937& random) {
  std::string text;
  for (std::size_t i = 0; i < size; ++i) {
    // Runs of backslashes, so that odd and even runs meet quotes and block edges.
    text += random() % 4 == 0 ? '\\' : kAlphabet[random() % kAlphabet.size()];
  }
  return text;
}

// The text alone in a buffer of its size, so that the sanitizer sees a read past its end.
struct ExactCopy {
  explicit ExactCopy(std::string_view text)
      : bytes(new char[std::max<std::size_t>(text.size(), 1)]), size(text.size()) {
    std::copy(text.begin(), text.end(), bytes.get());
  }
  std::string_view view() const { return {bytes.get(), size}; }
  std::unique_ptr<char[]> bytes;
  std::size_t size;
};

// A byte-by-byte reading: outside a string a quote opens one and any other byte is itself;
// inside, a backslash escapes the next byte and a quote closes it.
struct Reference {
  explicit Reference(std::string_view text) : inside(text.size() + 1, false), string_end(text.size(), 0) {
    bool in = false;
    std::size_t open = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      inside[i] = in;
      if (!in) {
        if (text[i] == '"') {
          in = true;
          open = i;
        } else if (text[i] == '\\') {
          stray = true;
        }
      } else if (text[i] == '\\') {
        inside[++i] = true;
      } else if (text[i] == '"') {
        in = false;
        string_end[open] = i + 1;
      }
    }
    inside.resize(text.size());
  }
  std::vector<bool> inside;             // the byte is in a string (after its opening quote)
  std::vector<std::size_t> string_end;  // at an opening quote: past the closing one, or 0
  bool stray = false;
};

std::size_t reference_container_end(std::string_view text, const Reference& r, std::size_t at) {
  int depth = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    if (r.inside[i] || text[i] == '"') {
      continue;
    }
    if (text[i] == '[' || text[i] == '{') {
      ++depth;
    } else if ((text[i] == ']' || text[i] == '}') && --depth == 0) {
      return i + 1;
    }
  }
  return 0;
}

// Strings (with escaped quotes and runs of backslashes), brackets, braces and other bytes, cut to
// `size`; some edited, so that quotes go unmatched and backslashes stray outside strings.
std::string random_json_ish(std::size_t size, std::mt19937& random) {
  std::string text;
  while (text.size() < size) {
    switch (random() % 6) {
      case 0:
      case 1: {
        text += '"';
        for (std::size_t n = random() % 40; n > 0; --n) {
          const unsigned pick = random() % 8;
          text += pick == 0   ? std::string("\\\"")
                  : pick == 1 ? std::string(1 + random() % 5, '\\') + "x"
                              : std::string(1, kAlphabet[random() % kAlphabet.size()]);
        }
        text += '"';
        break;
      }
      case 2:
        text += random() % 2 == 0 ? '[' : '{';
        break;
      case 3:
        text += random() % 2 == 0 ? ']' : '}';
        break;
      default:
        text += random() % 2 == 0 ? ",1" : ":";
        break;
    }
  }
  text.resize(size);
  return random() % 4 == 0 ? random_edit(text, "\"\\[]{}", random) : text;
}

std::size_t offset(std::string_view text, const char* p) {
  return p == nullptr ? 0 : static_cast<std::size_t>(p - text.data());
}

TEST(JsonMarks, PassesOverStringsAndContainers) {
  const std::string_view json = R"({"a":"x\"y","b\\":[1,{"c":"\\\"}]"}],"d":{}})";
  JsonMarks marks(json);
  EXPECT_EQ(offset(json, marks.past_string(json.data() + 2)), 4U);       // "a"
  EXPECT_EQ(offset(json, marks.past_string(json.data() + 6)), 11U);      // "x\"y"
  EXPECT_EQ(offset(json, marks.past_string(json.data() + 13)), 17U);     // "b\\"
  EXPECT_EQ(offset(json, marks.past_container(json.data() + 18)), 36U);  // past the array
  EXPECT_EQ(offset(json, marks.past_string(json.data() + 38)), 40U);     // "d"
  EXPECT_EQ(offset(json, marks.past_container(json.data() + 41)), 43U);
  EXPECT_FALSE(marks.stray_backslash());
  EXPECT_EQ(marks.past_string(json.data() + 43), nullptr);
  EXPECT_EQ(marks.past_container(json.data() + json.size()), nullptr);
}

// Each width's blocks against a byte-by-byte reading of JSON's rule for escapes: a backslash
// escapes the next byte unless escaped itself, and every quote not escaped starts or ends a
// string. Texts of up to three windows, so that escapes and strings cross blocks and windows.
TEST(JsonMarks, AQuestionAboutAWindowLeftBehindHasNoAnswer) {
  // Three windows of strings; the last question goes back to the first window.
  std::string text;
  while (text.size() < 3 * JsonMarks::kWindow * 64) {
    text += R"("abc",)";
  }
  JsonMarks marks(text);
  EXPECT_EQ(offset(text, marks.past_string(text.data() + 1)), 5U);
  const std::size_t far = 2 * JsonMarks::kWindow * 64 + 1;
  ASSERT_NE(marks.past_string(text.data() + far), nullptr);
  EXPECT_EQ(marks.past_string(text.data() + 1), nullptr);
  EXPECT_EQ(marks.past_container(text.data()), nullptr);
}

TEST(JsonMarks, EachWidthReadsBlocksAsByteByByte) {
  using json_marks_detail::has_read_blocks_wide;
  std::mt19937 random(64);
  int wide_checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const std::size_t size = random() % (3 * JsonMarks::kWindow * 64 + 1);
    const ExactCopy copy(random() % 2 == 0 ? random_text(size, random) : random_json_ish(size, random));
    const std::string_view text = copy.view();
    const std::size_t blocks = (text.size() + 63) / 64;
    std::vector<JsonMarks::Block> expected(blocks);
    bool escaped = false;
    bool inside = false;
    bool stray = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const std::uint64_t bit = std::uint64_t{1} << (i % 64);
      JsonMarks::Block& e = expected[i / 64];
      const char c = text[i];
      if (c == '"' && !escaped) {
        e.quotes |= bit;
        inside = !inside;
      } else if (!inside && (c == '[' || c == '{')) {
        e.opens |= bit;
      } else if (!inside && (c == ']' || c == '}')) {
        e.closes |= bit;
      }
      stray = stray || (c == '\\' && !inside);
      escaped = c == '\\' && !escaped;
    }
    const auto check = [&](auto read) {
      std::vector<JsonMarks::Block> got(blocks + JsonMarks::kWindow);
      JsonMarks::Carry carry;
      for (std::size_t at = 0; at < text.size();) {
        const std::size_t n = read(text.data() + at, text.size() - at, carry, got.data() + at / 64);
        ASSERT_EQ(n, std::min(JsonMarks::kWindow, (text.size() - at + 63) / 64));
        at += 64 * n;
      }
      for (std::size_t b = 0; b < blocks; ++b) {
        ASSERT_EQ(got[b].quotes, expected[b].quotes) << b << " " << text;
        ASSERT_EQ(got[b].opens, expected[b].opens) << b << " " << text;
        ASSERT_EQ(got[b].closes, expected[b].closes) << b << " " << text;
      }
      ASSERT_EQ(carry.stray_backslashes != 0, stray) << text;
    };
    check(json_marks_detail::read_blocks_narrow);
    if (has_read_blocks_wide()) {
      check(json_marks_detail::read_blocks_wide);
      ++wide_checked;
    }
  }
  if (wide_checked == 0) {
    GTEST_SKIP() << "no AVX2 and carry-less multiplication on this CPU: only the 16-byte reading was checked";
  }
}

// A reader that walks the text, passing over each string and container it meets, gets the
// byte-by-byte reading's answers; where it does not, a stray backslash was read. Texts of every
// length to three blocks, so that strings, containers and runs of backslashes cross block edges
// and end in the last, partial block.
TEST(JsonMarks, AgreesWithAByteByByteReadingOrSaysWhyNot) {
  std::mt19937 random(2026);
  int agreed = 0;
  int walks = 0;
  for (std::size_t size = 0; size <= 200; ++size) {
    for (int trial = 0; trial < 40; ++trial) {
      const ExactCopy copy(random_json_ish(size, random));
      const std::string_view text = copy.view();
      const Reference reference(text);
      JsonMarks marks(text);
      bool same = true;
      const std::size_t end = text.size();  // an edit may have changed it
      for (std::size_t at = 0; at < end && same;) {
        const char c = text[at];
        if (c == '"') {
          const std::size_t got = offset(text, marks.past_string(text.data() + at + 1));
          same = got == reference.string_end[at];
          at = got == 0 ? end : got;
        } else if (c == '[' || c == '{') {
          const std::size_t got = offset(text, marks.past_container(text.data() + at));
          same = got == reference_container_end(text, reference, at);
          at = got == 0 ? end : got;
        } else {
          ++at;
        }
      }
      ++walks;
      if (same && !reference.stray) {
        ++agreed;
        EXPECT_FALSE(marks.stray_backslash()) << text;
      }
      if (!same) {
        ASSERT_TRUE(marks.stray_backslash()) << text;
      }
    }
  }
  EXPECT_GT(agreed, walks / 4);
}

}  // namespace
}  // namespace infergate::openai
