#include "http/message_head.hpp"

#include <gtest/gtest.h>

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace infergate::http {
namespace {

namespace bhttp = boost::beast::http;
using boost::system::error_code;

error_code request(std::string_view text, MessageHead& out) {
  return parse_request_head(text, out);
}

error_code request(const std::string& text) {
  MessageHead head;
  return parse_request_head(text, head);
}

error_code response(std::string_view text, MessageHead& out, bool head_request = false) {
  return parse_response_head(text, head_request, out);
}

TEST(MessageHead, ParsesARequestIntoViewsOfItsText) {
  const std::string text =
      "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: gw\r\nContent-Type:application/json \r\n"
      "Content-Length: 12\r\nX-Empty:\r\n\r\n";
  MessageHead head;
  ASSERT_FALSE(request(text, head));
  EXPECT_EQ(head.method, "POST");
  EXPECT_EQ(head.target, "/v1/chat/completions?x=1");
  EXPECT_EQ(head.minor_version, 1);
  ASSERT_EQ(head.fields.size(), 4U);
  EXPECT_EQ(head.header("content-type"), "application/json");  // optional whitespace trimmed
  EXPECT_EQ(head.header("X-EMPTY"), "");
  EXPECT_EQ(head.header("Accept"), "");
  EXPECT_EQ(head.framing, BodyFraming::length);
  EXPECT_EQ(head.content_length, 12U);
  EXPECT_TRUE(head.keep_alive);
  EXPECT_FALSE(head.expect_continue);
  EXPECT_GE(head.method.data(), text.data());
  EXPECT_LT(head.method.data(), text.data() + text.size());
}

TEST(MessageHead, ReadsEveryMethodWholeWhetherCommonOrNot) {
  for (const std::string_view method : {"POST", "GET", "post", "get", "PUT", "DELETE", "POSTS", "GETS", "POS", "GE",
                                        "P", "PATCH", "M-SEARCH", "GET_"}) {
    MessageHead head;
    const std::string text = std::string(method) + " /a HTTP/1.1\r\n\r\n";
    ASSERT_FALSE(request(text, head)) << method;
    EXPECT_EQ(head.method, method);
    EXPECT_EQ(head.target, "/a");
  }
  for (const std::string_view method : {"POS(", "GE:", "P\x01ST", "G\xffT", "POST\t", "GET\t", ""}) {
    EXPECT_EQ(request(std::string(method) + " /a HTTP/1.1\r\n\r\n"), bhttp::error::bad_method) << method;
  }
  EXPECT_EQ(request("POST  /a HTTP/1.1\r\n\r\n"), bhttp::error::bad_target);
  EXPECT_EQ(request("POST\r\n\r\n"), bhttp::error::bad_method);
  EXPECT_EQ(request("GET \r\n\r\n"), bhttp::error::bad_target);
}

TEST(MessageHead, KeepAliveFollowsTheVersionAndTheConnectionField) {
  struct Case {
    std::string_view head;
    bool keep_alive;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"GET / HTTP/1.0\r\n\r\n", false},
           {"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true},
           {"GET / HTTP/1.1\r\nConnection: upgrade, close\r\n\r\n", false},
           {"GET / HTTP/1.1\r\nConnection: KEEP-alive\r\n\r\n", true},
           {"GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n", false},
           {"GET / HTTP/1.1\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false},
           {"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true},
           {"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false},
           {"GET / HTTP/1.1\r\n\r\n", true},
       }) {
    MessageHead head;
    ASSERT_FALSE(c.head.starts_with("HTTP/") ? response(c.head, head) : request(c.head, head)) << c.head;
    EXPECT_EQ(head.keep_alive, c.keep_alive) << c.head;
    EXPECT_EQ(head.framing, BodyFraming::none) << c.head;
  }
}

TEST(MessageHead, ReadsChunkedFramingAndExpectContinue) {
  MessageHead head;
  ASSERT_FALSE(request("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-Continue\r\n\r\n", head));
  EXPECT_EQ(head.framing, BodyFraming::chunked);
  EXPECT_TRUE(head.expect_continue);
}

TEST(MessageHead, RefusesRequestsThatAnotherServerCouldFrameDifferently) {
  EXPECT_EQ(request("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
            bhttp::error::bad_transfer_encoding);
  EXPECT_EQ(request("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
            bhttp::error::bad_transfer_encoding);
  EXPECT_EQ(request("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"),
            bhttp::error::bad_transfer_encoding);
  EXPECT_EQ(request("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"),
            bhttp::error::multiple_content_length);
  EXPECT_FALSE(request("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"));
  for (const char* length : {"", "+5", "-5", "5a", "0x5", "5 5", "99999999999999999999"}) {
    EXPECT_EQ(request(std::string("POST / HTTP/1.1\r\nContent-Length: ") + length + "\r\n\r\n"),
              bhttp::error::bad_content_length)
        << length;
  }
}

TEST(MessageHead, ReadsContentLengthsOfEveryWidthUpToTheBound) {
  const auto length_of = [](const std::string& value) -> std::optional<std::uint64_t> {
    MessageHead head;
    if (request("POST / HTTP/1.1\r\nContent-Length: " + value + "\r\n\r\n", head)) {
      return std::nullopt;
    }
    return head.content_length;
  };
  EXPECT_EQ(length_of("0"), 0U);
  EXPECT_EQ(length_of("7"), 7U);
  EXPECT_EQ(length_of("00012"), 12U);
  EXPECT_EQ(length_of(std::string(30, '0') + "9"), 9U);  // leading zeros do not count toward the bound
  EXPECT_EQ(length_of("1234567890123"), 1234567890123U);
  EXPECT_EQ(length_of("4611686018427387904"), std::uint64_t{1} << 62);
  for (const char* refused :
       {"4611686018427387905", "9999999999999999999", "18446744073709551616", "1/2", "1:2", "/", ":", " 5x"}) {
    EXPECT_EQ(length_of(refused), std::nullopt) << refused;
  }
}

// A head parsed into one that held another has nothing left of the first.
TEST(MessageHead, ParsingIntoAUsedHeadLeavesNothingOfTheLastOne) {
  MessageHead used;
  ASSERT_FALSE(
      request("POST /a HTTP/1.0\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n"
              "Connection: close\r\n\r\n",
              used));
  ASSERT_FALSE(response("HTTP/1.1 503 Busy\r\nRetry-After: 1\r\nTransfer-Encoding: chunked\r\n\r\n", used));
  const std::string next = "GET /b HTTP/1.1\r\nX-One: 1\r\n\r\n";
  ASSERT_FALSE(request(next, used));
  MessageHead fresh;
  ASSERT_FALSE(request(next, fresh));
  EXPECT_EQ(used.method, fresh.method);
  EXPECT_EQ(used.target, fresh.target);
  EXPECT_EQ(used.status, fresh.status);
  EXPECT_EQ(used.minor_version, fresh.minor_version);
  ASSERT_EQ(used.fields.size(), 1U);
  EXPECT_EQ(used.fields[0].name, "X-One");
  EXPECT_EQ(used.framing, fresh.framing);
  EXPECT_EQ(used.content_length, fresh.content_length);
  EXPECT_EQ(used.keep_alive, fresh.keep_alive);
  EXPECT_EQ(used.expect_continue, fresh.expect_continue);
}

// RFC 9112 section 3.2.2: a server accepts the absolute form (sent to what a client takes for a
// proxy) and serves its path. An absolute one without a path, and forms that are none of those nor
// OPTIONS' "*", are refused.
TEST(MessageHead, AnAbsoluteTargetIsReadAsItsPathAndQuery) {
  for (const std::string_view target :
       {"http://gw:8080/v1/models?x=1", "HTTPS://gw/v1/models?x=1", "http://user@[::1]:80/v1/models?x=1"}) {
    MessageHead head;
    const std::string text = "GET " + std::string(target) + " HTTP/1.1\r\nHost: gw\r\n\r\n";
    ASSERT_FALSE(request(text, head)) << target;
    EXPECT_EQ(head.target, "/v1/models?x=1") << target;
  }
  for (const std::string_view target : {"http://gw", "http://gw?x=1", "ftp://gw/a", "gw/a", "**"}) {
    EXPECT_EQ(request("GET " + std::string(target) + " HTTP/1.1\r\n\r\n"), bhttp::error::bad_target) << target;
  }
  MessageHead head;
  ASSERT_FALSE(request("OPTIONS * HTTP/1.1\r\n\r\n", head));
  EXPECT_EQ(head.target, "*");
}

TEST(MessageHead, RefusesMalformedLines) {
  EXPECT_EQ(request("GET / HTTP/1.1\r\nX-A: 1\r\n continued\r\n\r\n"), bhttp::error::bad_obs_fold);
  EXPECT_EQ(request("GET / HTTP/1.1\r\nX-A: a\x01 b\r\n\r\n"), bhttp::error::bad_value);
  EXPECT_EQ(request("GET / HTTP/1.1\r\nX-A: a\rInjected: 1\r\n\r\n"), bhttp::error::bad_value);
  EXPECT_EQ(request("GET / HTTP/1.1\r\nX-A: a\nInjected: 1\r\n\r\n"), bhttp::error::bad_value);
  EXPECT_EQ(request("GET / HTTP/1.1\r\nX A: 1\r\n\r\n"), bhttp::error::bad_field);
  EXPECT_EQ(request("GET / HTTP/1.1\r\n: 1\r\n\r\n"), bhttp::error::bad_field);
  EXPECT_EQ(request("GET / HTTP/1.1\r\nNoColon\r\n\r\n"), bhttp::error::bad_field);
  EXPECT_EQ(request("G(T / HTTP/1.1\r\n\r\n"), bhttp::error::bad_method);
  EXPECT_EQ(request("GET\r\n\r\n"), bhttp::error::bad_method);
  EXPECT_EQ(request("GET /a\x7f HTTP/1.1\r\n\r\n"), bhttp::error::bad_target);
  // A target is ASCII: a client percent-encodes anything else (caf%C3%A9).
  EXPECT_EQ(request("GET /caf\xc3\xa9 HTTP/1.1\r\n\r\n"), bhttp::error::bad_target);
  EXPECT_EQ(request("GET /\xff HTTP/1.1\r\n\r\n"), bhttp::error::bad_target);
  EXPECT_FALSE(request("GET /caf%C3%A9?q=1 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(request("GET  / HTTP/1.1\r\n\r\n"), bhttp::error::bad_target);
  EXPECT_EQ(request("GET / HTTP/2.0\r\n\r\n"), bhttp::error::bad_version);
  EXPECT_EQ(request("GET / HTTP/1.1 \r\n\r\n"), bhttp::error::bad_version);
  EXPECT_EQ(request("GET / HTTP/1.1\r\n\xff\xfe\r\n\r\n"), bhttp::error::bad_field);
  // Values may carry obs-text (UTF-8 from a careless client): it is not a control character.
  EXPECT_FALSE(request("GET / HTTP/1.1\r\nX-Name: caf\xc3\xa9\r\n\r\n"));
}

TEST(MessageHead, FindsAStrayControlAnywhereInALongValue) {
  // Values are searched many bytes at a time: a bad byte at every place of a long value, before
  // and after a block boundary, with more of the head after it, is found; a tab is not one.
  const std::string before = "GET / HTTP/1.1\r\nX-Long: ";
  const std::string after = "\r\nX-Next: 1\r\nX-Last: 2\r\n\r\n";
  for (std::size_t at = 0; at < 40; ++at) {
    for (const char bad : {'\x01', '\x7f', '\n', '\r', '\0'}) {
      std::string value(40, 'v');
      value[at] = bad;
      EXPECT_EQ(request(before + value + after), bhttp::error::bad_value) << at << " " << int{bad};
    }
    std::string value(40, 'v');
    value[at] = '\t';
    const std::string text = before + value + after;
    MessageHead head;
    ASSERT_FALSE(request(text, head)) << at;
    EXPECT_EQ(head.header("X-Long").size(), at == 0 || at == 39 ? 39U : 40U);  // one at either end is trimmed
    EXPECT_EQ(head.header("x-last"), "2");
  }
}

TEST(MessageHead, ReadsEveryTokenCharacterAndRefusesOthersAnywhereInALongName) {
  // Names are passed over many bytes at a time while they hold letters, digits and hyphens: any
  // other token character, at every place of a long name, before and after a block boundary, is
  // still part of the name, and any byte that is not a token's is refused there.
  for (std::size_t at = 0; at < 40; ++at) {
    for (const char c : std::string_view("!#$%&'*+.^_`|~AZaz09-")) {
      std::string name(40, 'n');
      name[at] = c;
      const std::string text = "GET / HTTP/1.1\r\n" + name + ": v\r\nX-Last: 2\r\n\r\n";
      MessageHead head;
      ASSERT_FALSE(request(text, head)) << at << " " << c;
      EXPECT_EQ(head.header(name), "v");
      EXPECT_EQ(head.header("x-last"), "2");
    }
    for (const char bad : {'@', '[', '{', '(', '/', '"', '\x7f', '\x80', '\xff', '\x01', '\x0d'}) {
      std::string name(40, 'n');
      name[at] = bad;
      EXPECT_NE(request("GET / HTTP/1.1\r\n" + name + ": v\r\n\r\n"), error_code{}) << at << " " << int{bad};
    }
  }
}

// The head in memory of exactly its size, so that a read past its end is one that ASan reports.
struct ExactHead {
  explicit ExactHead(const std::string& text) : bytes(std::make_unique<char[]>(text.size())), size(text.size()) {
    std::copy(text.begin(), text.end(), bytes.get());
  }
  [[nodiscard]] std::string_view view() const { return {bytes.get(), size}; }
  std::unique_ptr<char[]> bytes;
  std::size_t size;
};

TEST(MessageHead, ReadsTheLastFieldOfAHeadToItsEndWithoutReadingPastIt) {
  // The last field's name and value lie in the head's last 16 bytes, which are read as one block
  // ending at the head's end: a bad byte or a tab at every place of every length of either, up to
  // past a block, is seen where it is, and nothing after the head is read.
  for (std::size_t size = 1; size <= 40; ++size) {
    for (std::size_t at = 0; at < size; ++at) {
      std::string value(size, 'v');
      value[at] = '\x01';
      const ExactHead bad("GET / HTTP/1.1\r\nX-Long: " + value + "\r\n\r\n");
      MessageHead head;
      EXPECT_EQ(request(bad.view(), head), bhttp::error::bad_value) << size << " " << at;
      value[at] = '\t';
      const ExactHead tab("GET / HTTP/1.1\r\nX-Long: " + value + "\r\n\r\n");
      ASSERT_FALSE(request(tab.view(), head)) << size << " " << at;
      const bool trimmed = at == 0 || at == size - 1;
      EXPECT_EQ(head.header("x-long").size(), size == 1 ? 0U : trimmed ? size - 1 : size) << size << " " << at;

      std::string name(size, 'n');
      name[at] = '@';
      const ExactHead bad_name("GET / HTTP/1.1\r\n" + name + ":\r\n\r\n");
      EXPECT_EQ(request(bad_name.view(), head), bhttp::error::bad_field) << size << " " << at;
      name[at] = '_';
      const ExactHead token_name("GET / HTTP/1.1\r\n" + name + ":\r\n\r\n");
      ASSERT_FALSE(request(token_name.view(), head)) << size << " " << at;
      ASSERT_EQ(head.fields.size(), 1U);
      EXPECT_EQ(head.fields[0].name, name);
    }
  }
}

TEST(MessageHead, FramingFieldsAreKnownInAnyCaseAndOnlyByTheirWholeNames) {
  for (const std::string_view name : {"content-length", "transfer-encoding", "connection", "expect"}) {
    const std::string value = name == "content-length"      ? "5"
                              : name == "transfer-encoding" ? "chunked"
                              : name == "connection"        ? "close"
                                                            : "100-continue";
    const auto framed = [&](const std::string& field) {
      MessageHead head;
      EXPECT_FALSE(request("POST / HTTP/1.1\r\n" + field + ": " + value + "\r\n\r\n", head)) << field;
      return head.framing != BodyFraming::none || !head.keep_alive || head.expect_continue;
    };
    std::string upper(name);
    for (std::size_t at = 0; at < name.size(); ++at) {
      std::string one_upper(name);
      one_upper[at] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[at])));
      EXPECT_TRUE(framed(one_upper));
      upper[at] = one_upper[at];
      // Each name one character off: a letter changed, a hyphen made an underscore.
      std::string other(name);
      other[at] = name[at] == '-' ? '_' : name[at] == 'x' ? 'y' : 'x';
      EXPECT_FALSE(framed(other));
    }
    EXPECT_TRUE(framed(upper));
    EXPECT_FALSE(framed(std::string(name) + "s"));
    EXPECT_FALSE(framed(std::string(name.substr(1))));
  }
}

TEST(MessageHead, FramesResponseBodiesByStatusLengthCodingOrClose) {
  MessageHead head;
  ASSERT_FALSE(response("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", head));
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.framing, BodyFraming::length);
  ASSERT_FALSE(response("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", head, true));
  EXPECT_EQ(head.framing, BodyFraming::none);  // a response to HEAD
  ASSERT_FALSE(response("HTTP/1.1 204 No Content\r\n\r\n", head));
  EXPECT_EQ(head.framing, BodyFraming::none);
  ASSERT_FALSE(response("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", head));
  EXPECT_EQ(head.framing, BodyFraming::none);
  ASSERT_FALSE(response("HTTP/1.1 100 Continue\r\n\r\n", head));
  EXPECT_EQ(head.framing, BodyFraming::none);
  ASSERT_FALSE(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", head));
  EXPECT_EQ(head.framing, BodyFraming::chunked);  // the coding wins over the length
  ASSERT_FALSE(response("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", head));
  EXPECT_EQ(head.framing, BodyFraming::none);
  ASSERT_FALSE(response("HTTP/1.1 200\r\n\r\n", head));  // no reason phrase at all
  EXPECT_EQ(head.framing, BodyFraming::until_close);
  EXPECT_FALSE(head.keep_alive);
  const std::string limited = "HTTP/1.1 429 \r\nRetry-After: 2\r\n\r\n";  // the views point into it
  ASSERT_FALSE(response(limited, head));
  EXPECT_EQ(head.status, 429);
  EXPECT_EQ(head.header("retry-after"), "2");
}

TEST(MessageHead, RefusesMalformedStatusLines) {
  MessageHead head;
  EXPECT_EQ(response("HTTP/2 200 OK\r\n\r\n", head), bhttp::error::bad_version);
  EXPECT_EQ(response("HTTP/1.1 20 OK\r\n\r\n", head), bhttp::error::bad_status);
  EXPECT_EQ(response("HTTP/1.1 2000 OK\r\n\r\n", head), bhttp::error::bad_status);
  EXPECT_EQ(response("HTTP/1.1 abc OK\r\n\r\n", head), bhttp::error::bad_status);
  for (const char* code : {"099", "000", "1a0", "20/", "20:", "/00", ":00", "-10", "+10"}) {
    EXPECT_EQ(response(std::string("HTTP/1.1 ") + code + " X\r\n\r\n", head), bhttp::error::bad_status) << code;
  }
  for (const int code : {100, 101, 200, 204, 299, 404, 429, 503, 599, 999}) {
    ASSERT_FALSE(response("HTTP/1.1 " + std::to_string(code) + " X\r\n\r\n", head)) << code;
    EXPECT_EQ(head.status, code);
  }
  EXPECT_EQ(response("HTTP/1.1 200 O\x01K\r\n\r\n", head), bhttp::error::bad_reason);
  EXPECT_EQ(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", head), bhttp::error::bad_transfer_encoding);
}

TEST(MessageHead, FindsTheEndOfAHeadThatArrivesInPieces) {
  const std::string text = "GET / HTTP/1.1\r\nHost: a\r\n\r\nNEXT";
  const std::size_t end = text.find("NEXT");
  for (std::size_t step = 1; step <= text.size(); ++step) {
    std::size_t scanned = 0;
    std::size_t found = std::string::npos;
    for (std::size_t have = step; found == std::string::npos; have = std::min(text.size(), have + step)) {
      found = find_head_end(std::string_view(text).substr(0, have), scanned);
      if (found == std::string::npos) {
        ASSERT_LT(have, end) << "step " << step;
      }
    }
    EXPECT_EQ(found, end) << "step " << step;
  }
}

TEST(MessageHead, ReadsAHeadFromTheStartOfWhatFollowsIt) {
  const std::string request = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n";
  const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: keep-alive\r\n\r\n";
  for (const bool is_request : {true, false}) {
    const std::string& head = is_request ? request : reply;
    const auto prefix = [is_request](std::string_view data, MessageHead& out, error_code& ec) {
      std::size_t scanned = 0;
      return is_request ? take_request_head(data, scanned, out, ec) : take_response_head(data, scanned, false, out, ec);
    };
    for (const std::string_view after : {"", "body", "\r\n\r\nGET / HTTP/1.1\r\n\r\n", "\x01\x7f"}) {
      const std::string text = head + std::string(after);
      MessageHead parsed;
      error_code ec;
      EXPECT_EQ(prefix(text, parsed, ec), head.size()) << text;
      ASSERT_FALSE(ec) << text;
      EXPECT_EQ(parsed.content_length, 4U);
      EXPECT_EQ(parsed.framing, BodyFraming::length);
      EXPECT_EQ(parsed.fields.back().value, is_request ? "4" : "keep-alive");
    }
    // Every part of the head short of its whole is waited for, not refused.
    for (std::size_t cut = 0; cut < head.size(); ++cut) {
      MessageHead parsed;
      error_code ec;
      EXPECT_EQ(prefix(std::string_view(head).substr(0, cut), parsed, ec), 0U) << cut;
      EXPECT_FALSE(ec) << cut << " " << ec.message();
    }
  }
  // A part that is wrong already is refused at once.
  const auto refusal = [](std::string_view data, bool is_request = true) {
    MessageHead parsed;
    error_code ec;
    std::size_t scanned = 0;
    const std::size_t size = is_request ? take_request_head(data, scanned, parsed, ec)
                                        : take_response_head(data, scanned, false, parsed, ec);
    EXPECT_EQ(size, 0U) << data;
    return ec;
  };
  EXPECT_EQ(refusal("GET / HTTP/1.1\r\nX A"), bhttp::error::bad_field);
  EXPECT_EQ(refusal("GET / HTTP/1.1\r\nX: a\n"), bhttp::error::bad_value);
  EXPECT_EQ(refusal("GET / HTTP/1.1\r\nX: a\rb"), bhttp::error::bad_value);
  EXPECT_EQ(refusal("GET / HTTP/1.1\r\n\rX"), bhttp::error::bad_field);
  EXPECT_EQ(refusal("G(T / HTTP/1.1\r\n"), bhttp::error::bad_method);
  EXPECT_EQ(refusal("HTTP/1.1 2x0 OK\r\n", false), bhttp::error::bad_status);
}

// A head that arrives a few bytes at a time is taken once it is whole, and only then, with the
// same fields as one that arrives at once; a wrong one is refused once it is whole.
TEST(MessageHead, TakesAHeadThatTricklesInOnceItIsWhole) {
  const std::string request = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody";
  const std::size_t head_size = request.find("body");
  for (std::size_t step = 1; step <= request.size(); ++step) {
    MessageHead parsed;
    error_code ec;
    std::size_t scanned = 0;
    std::size_t size = 0;
    std::size_t have = 0;
    while (size == 0 && have < request.size()) {
      have = std::min(request.size(), have + step);
      size = take_request_head(std::string_view(request).substr(0, have), scanned, parsed, ec);
      ASSERT_FALSE(ec) << step << " " << ec.message();
      if (size == 0) {
        ASSERT_LT(have, head_size) << step;
      }
    }
    ASSERT_EQ(size, head_size) << step;
    EXPECT_EQ(parsed.target, "/a");
    EXPECT_EQ(parsed.content_length, 4U);
    ASSERT_EQ(parsed.fields.size(), 2U);
    EXPECT_EQ(parsed.fields[0].value, "x");
  }
  const std::string wrong = "GET / HTTP/1.1\r\nX A: 1\r\n\r\n";
  MessageHead parsed;
  error_code ec;
  std::size_t scanned = 0;
  EXPECT_EQ(take_request_head(std::string_view(wrong).substr(0, 5), scanned, parsed, ec), 0U);
  EXPECT_FALSE(ec);
  EXPECT_EQ(take_request_head(wrong, scanned, parsed, ec), 0U);
  EXPECT_EQ(ec, bhttp::error::bad_field);
}

// A head whose lines end in LF alone can never end: it is refused as soon as a bare LF arrives,
// however the head is cut, rather than waited on for a CRLF that will not come.
TEST(MessageHead, ALineEndingInLfAloneIsRefusedAtOnceAtEverySplit) {
  const std::string request = "GET /a HTTP/1.1\nHost: x\n\n";
  const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\n\n";
  for (const bool is_request : {true, false}) {
    const std::string& text = is_request ? request : reply;
    const std::size_t first_bare = is_request ? text.find('\n') : text.find("0\n") + 1;
    for (std::size_t step = 1; step <= text.size(); ++step) {
      MessageHead parsed;
      error_code ec;
      std::size_t scanned = 0;
      std::size_t have = 0;
      while (!ec && have < text.size()) {
        have = std::min(text.size(), have + step);
        const std::string_view data = std::string_view(text).substr(0, have);
        const std::size_t size = is_request ? take_request_head(data, scanned, parsed, ec)
                                            : take_response_head(data, scanned, false, parsed, ec);
        ASSERT_EQ(size, 0U);
        if (!ec) {
          ASSERT_LE(have, first_bare) << is_request << " step " << step;
        }
      }
      EXPECT_TRUE(ec) << is_request << " step " << step;
    }
  }
  // A head whose CRLFs are all there so far is waited for.
  MessageHead parsed;
  error_code ec;
  std::size_t scanned = 0;
  EXPECT_EQ(take_request_head("GET / HTTP/1.1\r\nHost: x\r\n", scanned, parsed, ec), 0U);
  EXPECT_FALSE(ec);
  EXPECT_EQ(take_request_head("GET / HTTP/1.1\r\nHost: x\r\nA: b\r", scanned, parsed, ec), 0U);
  EXPECT_FALSE(ec);
}

// The head read from the start of a buffer, and the same head found first and read alone, come
// out the same for any bytes: the readers take the one or the other by how the head arrives.
TEST(MessageHead, AHeadReadFromItsBufferReadsAsTheHeadAlone) {
  const std::string request = "POST /v1/x?y=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nConnection: close\r\n\r\n";
  const std::string reply =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Ratelimit-Remaining-Requests: 9\r\n\r\n";
  std::mt19937 rng(11);
  int compared = 0;
  for (int round = 0; round < 20000; ++round) {
    const bool is_request = round % 2 == 0;
    std::string text = is_request ? request : reply;
    for (int e = 1 + static_cast<int>(rng() % 3); e > 0; --e) {
      const std::size_t at = rng() % text.size();
      if (rng() % 2 == 0) {
        text[at] = static_cast<char>(rng() % 256);
      } else {
        text.insert(at, 1, ":\r\n \t,0"[rng() % 7]);
      }
    }
    text += "NEXT\r\n\r\n";
    MessageHead from_buffer;
    error_code ec;
    std::size_t taken = 0;
    const std::size_t size = is_request ? take_request_head(text, taken, from_buffer, ec)
                                        : take_response_head(text, taken, false, from_buffer, ec);
    std::size_t scanned = 0;
    const std::size_t end = find_head_end(text, scanned);
    ASSERT_NE(end, std::string::npos);  // the text's own empty line at least
    MessageHead alone;
    const auto alone_ec = is_request ? parse_request_head(std::string_view(text).substr(0, end), alone)
                                     : parse_response_head(std::string_view(text).substr(0, end), false, alone);
    ASSERT_EQ(ec, alone_ec) << text;
    ASSERT_EQ(size, ec ? 0 : end) << text;
    if (!ec) {
      ++compared;
      ASSERT_EQ(from_buffer.fields.size(), alone.fields.size()) << text;
      for (std::size_t i = 0; i < alone.fields.size(); ++i) {
        ASSERT_EQ(from_buffer.fields[i].name, alone.fields[i].name) << text;
        ASSERT_EQ(from_buffer.fields[i].value, alone.fields[i].value) << text;
      }
      ASSERT_EQ(from_buffer.framing, alone.framing) << text;
      ASSERT_EQ(from_buffer.content_length, alone.content_length) << text;
      ASSERT_EQ(from_buffer.keep_alive, alone.keep_alive) << text;
    }
  }
  EXPECT_GT(compared, 1000);  // enough of the mangled heads are still heads to compare
}

// Mangled heads (bytes flipped, inserted or dropped) parse to a clean error or to a head whose
// every view lies inside the text, never to a crash (the sanitizer build runs this too).
TEST(MessageHead, MangledHeadsFailCleanly) {
  const std::string request = "POST /v1/x?y=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nConnection: close\r\n\r\n";
  const std::string reply =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Ratelimit-Remaining-Requests: 9\r\n\r\n";
  std::mt19937 rng(3);
  for (int round = 0; round < 20000; ++round) {
    std::string text = round % 2 == 0 ? request : reply;
    for (int e = 1 + static_cast<int>(rng() % 3); e > 0; --e) {
      const std::size_t at = rng() % (text.size() - 4);  // the final empty line stays
      if (rng() % 2 == 0) {
        text[at] = static_cast<char>(rng() % 256);
      } else {
        text.insert(at, 1, ":\r\n \t,0"[rng() % 7]);
      }
    }
    std::size_t scanned = 0;
    const std::size_t end = find_head_end(text, scanned);
    if (end == std::string::npos) {
      continue;
    }
    const std::string_view head = std::string_view(text).substr(0, end);
    MessageHead parsed;
    const auto ec = round % 2 == 0 ? parse_request_head(head, parsed) : parse_response_head(head, false, parsed);
    if (ec) {
      continue;
    }
    auto inside = [&](std::string_view v) {
      return v.empty() || (v.data() >= head.data() && v.data() + v.size() <= head.data() + head.size());
    };
    ASSERT_TRUE(inside(parsed.method) && inside(parsed.target)) << text;
    for (const Header& h : parsed.fields) {
      ASSERT_TRUE(inside(h.name) && inside(h.value)) << text;
      ASSERT_EQ(h.value.find_first_of("\r\n"), std::string_view::npos) << text;
    }
    if (round % 2 == 1) {
      ASSERT_GE(parsed.status, 100) << text;
      ASSERT_LE(parsed.status, 999) << text;
    }
  }
}

TEST(MessageHead, NamesCompareWithoutCaseForAsciiLettersOnly) {
  EXPECT_TRUE(iequals("Content-Length", "content-length"));
  EXPECT_TRUE(iequals("X-RATELIMIT-", "x-ratelimit-"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("content-length", "content-lengths"));
  EXPECT_FALSE(iequals("content-length", "content_length"));
  // Characters 0x20 apart that are not letters are not one another's case.
  EXPECT_FALSE(iequals("@", "`"));
  EXPECT_FALSE(iequals("[", "{"));
  EXPECT_FALSE(iequals("\xC4", "\xE4"));
}

// iequals compares eight bytes at a time; a byte at a time is the reference: every pair of byte
// values, at every place of names of every length around the word size, with the other bytes equal
// but for their case.
TEST(MessageHead, NamesCompareAsByteByByteAtEveryPlaceAndLength) {
  const auto reference = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      const int x = static_cast<unsigned char>(a[i]);
      const int y = static_cast<unsigned char>(b[i]);
      const bool letters = std::isalpha(x) != 0 && x < 0x80 && std::isalpha(y) != 0 && y < 0x80;
      if (x != y && !(letters && std::tolower(x) == std::tolower(y))) {
        return false;
      }
    }
    return true;
  };
  const std::string name = "X-Ratelimit-Reset-TOKENS-42";
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
  for (const std::size_t length : {1U, 7U, 8U, 9U, 15U, 16U, 17U, 25U}) {
    std::string a = name.substr(0, length);
    std::string b = lower.substr(0, length);
    ASSERT_TRUE(iequals(a, b));
    for (std::size_t at = 0; at < length; ++at) {
      const char keep_a = a[at];
      const char keep_b = b[at];
      for (int x = 0; x < 256; ++x) {
        for (int y = 0; y < 256; ++y) {
          a[at] = static_cast<char>(x);
          b[at] = static_cast<char>(y);
          if (iequals(a, b) != reference(a, b)) {
            FAIL() << "length " << length << " at " << at << ": " << x << " and " << y;
          }
        }
      }
      a[at] = keep_a;
      b[at] = keep_b;
    }
  }
}

}  // namespace
}  // namespace infergate::http
