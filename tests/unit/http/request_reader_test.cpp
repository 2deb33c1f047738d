#include "http/request_reader.hpp"

#include <gtest/gtest.h>

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace infergate::http {
namespace {

namespace bhttp = boost::beast::http;

struct Request {
  std::string method;
  std::string target;
  std::string content_type;
  std::string body;
};

// Feeds `input` to a reader in reads of at most `step` bytes and collects every request it
// completes; stops at the first failure, which `error` gets.
std::vector<Request> read_all(RequestReader& reader, const std::string& input, std::size_t step,
                              boost::system::error_code& error) {
  std::vector<Request> got;
  std::size_t at = 0;
  for (;;) {
    const auto status = reader.advance();
    if (status == RequestReader::Status::failed) {
      error = reader.error();
      return got;
    }
    if (status == RequestReader::Status::complete) {
      got.push_back(Request{std::string(reader.head().method), std::string(reader.head().target),
                            std::string(reader.head().header("Content-Type")), std::string(reader.body())});
      reader.next();
      continue;
    }
    if (at == input.size()) {
      return got;
    }
    const auto room = reader.prepare();
    const std::size_t n = std::min({step, room.size(), input.size() - at});
    std::memcpy(room.data(), input.data() + at, n);
    reader.commit(n);
    at += n;
  }
}

TEST(RequestReader, ReadsPipelinedRequestsHoweverTheyArrive) {
  const std::string body(3000, 'b');  // beyond the first buffer: it has to grow while views exist
  const std::string input =
      "\r\nPOST /one HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body +
      "POST /two HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
      "4\r\nabcd\r\n3;x=y\r\nefg\r\n0\r\n\r\n"
      "GET /three HTTP/1.1\r\n\r\n";
  for (const std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{100}, std::size_t{5000}}) {
    RequestReader reader(1024, 1 << 20, 512);
    boost::system::error_code error;
    const auto got = read_all(reader, input, step, error);
    ASSERT_FALSE(error) << error.message() << " step " << step;
    ASSERT_EQ(got.size(), 3U) << "step " << step;
    EXPECT_EQ(got[0].target, "/one");
    EXPECT_EQ(got[0].content_type, "application/json");
    EXPECT_EQ(got[0].body, body);
    EXPECT_EQ(got[1].target, "/two");
    EXPECT_EQ(got[1].content_type, "text/plain");
    EXPECT_EQ(got[1].body, "abcdefg");
    EXPECT_EQ(got[2].method, "GET");
    EXPECT_EQ(got[2].body, "");
    EXPECT_FALSE(reader.got_some());
  }
}

TEST(RequestReader, SaysWhenTheHeadIsInBeforeTheBody) {
  RequestReader reader(1024, 1024);
  const std::string head = "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n";
  auto room = reader.prepare();
  std::memcpy(room.data(), head.data(), head.size());
  reader.commit(head.size());
  EXPECT_EQ(reader.advance(), RequestReader::Status::need_more);
  EXPECT_TRUE(reader.head_ready());
  EXPECT_TRUE(reader.expect_continue());
  room = reader.prepare();
  std::memcpy(room.data(), "body", 4);
  reader.commit(4);
  ASSERT_EQ(reader.advance(), RequestReader::Status::complete);
  EXPECT_EQ(reader.body(), "body");
}

void put(RequestReader& reader, std::span<char> room, std::string_view bytes) {
  ASSERT_GE(room.size(), bytes.size());
  std::memcpy(room.data(), bytes.data(), bytes.size());
  reader.commit(bytes.size());
}

// The server reads the next request into spare() while a handler holds views of the current one;
// the read completes before next() or after it.
TEST(RequestReader, ReadsTheNextRequestAheadWhileTheCurrentOneIsServed) {
  const std::string body(180, 'b');
  const std::string first = "POST /first HTTP/1.1\r\nX-Tag: one\r\nContent-Length: 180\r\n\r\n" + body;
  const std::string second = "GET /second HTTP/1.1\r\n\r\n";
  for (const bool completes_before_next : {true, false}) {
    SCOPED_TRACE(completes_before_next);
    RequestReader reader(1024, 1024, 256);  // the first request nearly fills it: spare() must grow it
    put(reader, reader.prepare(), first);
    ASSERT_EQ(reader.advance(), RequestReader::Status::complete);
    EXPECT_FALSE(reader.pipelined());
    const auto room = reader.spare(512);
    EXPECT_GE(room.size(), 512U);
    // The views of the request point at its new place.
    EXPECT_EQ(reader.head().target, "/first");
    EXPECT_EQ(reader.head().header("X-Tag"), "one");
    EXPECT_EQ(reader.body(), body);
    if (completes_before_next) {
      put(reader, room, second);
      reader.next();
    } else {
      reader.next(true);
      put(reader, room, second);
    }
    ASSERT_EQ(reader.advance(), RequestReader::Status::complete);
    EXPECT_EQ(reader.head().target, "/second");
    EXPECT_FALSE(reader.pipelined());
  }
}

// The other way spare() finds room: a request that came after another is moved to the front of
// the buffer, and every view of its head follows it, whatever is read into the room next.
TEST(RequestReader, ViewsOfAHeadFollowItWhenSpareMovesItToTheFront) {
  const std::string first = "GET /first HTTP/1.1\r\nX-Pad: " + std::string(150, 'p') + "\r\n\r\n";
  const std::string second =
      "POST /second?q=1 HTTP/1.1\r\nHost: gw\r\nX-Empty:\r\nAuthorization: Bearer ig-0123456789\r\n"
      "Content-Length: 4\r\n\r\nbody";
  RequestReader reader(1024, 1024, 512);
  put(reader, reader.prepare(), first + second);  // the first read's room grows the buffer to 2 KiB
  ASSERT_EQ(reader.advance(), RequestReader::Status::complete);
  reader.next();
  ASSERT_EQ(reader.advance(), RequestReader::Status::complete);
  const char* before = reader.head().target.data();
  const auto room = reader.spare(1800);  // fewer are left after it, enough once it is at the front
  ASSERT_GE(room.size(), 1800U);
  EXPECT_NE(reader.head().target.data(), before);
  // What the old place held is overwritten by the next read: a view left there would see it.
  std::memset(room.data(), 'z', room.size());
  const MessageHead& head = reader.head();
  EXPECT_EQ(head.method, "POST");
  EXPECT_EQ(head.target, "/second?q=1");
  ASSERT_EQ(head.fields.size(), 4U);
  EXPECT_EQ(head.fields[0].name, "Host");
  EXPECT_EQ(head.fields[0].value, "gw");
  EXPECT_EQ(head.fields[1].name, "X-Empty");
  EXPECT_EQ(head.fields[1].value, "");
  EXPECT_EQ(head.header("Authorization"), "Bearer ig-0123456789");
  EXPECT_EQ(head.header("content-length"), "4");
  EXPECT_EQ(reader.body(), "body");
  for (const Header& h : head.fields) {
    EXPECT_GE(h.value.data(), h.name.data());  // every view points into the moved head
    EXPECT_LE(h.value.data() + h.value.size(), reader.body().data());
  }
}

TEST(RequestReader, SaysWhenAnotherRequestFollows) {
  RequestReader reader(1024, 1024);
  put(reader, reader.prepare(),
      "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
  ASSERT_EQ(reader.advance(), RequestReader::Status::complete);
  EXPECT_EQ(reader.body(), "abc");
  EXPECT_TRUE(reader.pipelined());
  reader.next();
  ASSERT_EQ(reader.advance(), RequestReader::Status::complete);
  EXPECT_EQ(reader.head().target, "/b");
  EXPECT_FALSE(reader.pipelined());
}

TEST(RequestReader, EnforcesTheHeaderAndBodyLimits) {
  boost::system::error_code error;
  RequestReader small_head(64, 1024);
  read_all(small_head, "GET / HTTP/1.1\r\nX-Long: " + std::string(100, 'x') + "\r\n\r\n", 10, error);
  EXPECT_EQ(error, bhttp::error::header_limit);

  error = {};
  RequestReader declared(1024, 10);
  read_all(declared, "POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", 100, error);
  EXPECT_EQ(error, bhttp::error::body_limit);  // refused before any of the body is read

  error = {};
  RequestReader chunked(1024, 10);
  read_all(chunked, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n", 3,
           error);
  EXPECT_EQ(error, bhttp::error::body_limit);

  error = {};
  RequestReader garbage(1024, 1024);
  read_all(garbage, "\x16\x03\x01\x02\x01\x01\xfc\x03\x03\r\n\r\n", 100, error);  // TLS to a plain port
  EXPECT_EQ(error, bhttp::error::bad_method);
}

// Mangled input (bytes flipped, inserted or dropped from valid pipelined requests, read in pieces
// of random size) must end in complete requests or a clean failure within the limits, never in a
// crash, a hang or a body past the limit (the sanitizer build runs this too).
TEST(RequestReader, SurvivesMangledInput) {
  const std::string valid =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
      "Content-Length: 19\r\n\r\n{\"model\":\"m\",\"x\":1}"
      "POST /v1/embeddings HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"
      "5;e=1\r\nhello\r\n0\r\nT: v\r\n\r\nGET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
  {
    RequestReader reader(256, 64, 64);
    boost::system::error_code error;
    ASSERT_EQ(read_all(reader, valid, 7, error).size(), 3U) << error.message();
  }
  constexpr char kInserted[] = "\r\n:; 0123456789abcdefABCDEF\x00\x7f\xff";  // framing bytes and worse
  std::mt19937 rng(5);
  constexpr std::size_t kMaxBody = 64;
  int stats[4] = {};  // rounds by how many requests they completed
  for (int round = 0; round < 20000; ++round) {
    std::string input = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % input.size();
      switch (rng() % 3) {
        case 0:
          input[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          input.insert(at, 1, kInserted[rng() % (sizeof(kInserted) - 1)]);
          break;
        default:
          input.erase(at, 1 + rng() % 8);
          break;
      }
    }
    RequestReader reader(256, kMaxBody, 64);
    std::size_t at = 0;
    int completed = 0;
    for (int steps = 0; steps < 10000; ++steps) {
      const auto status = reader.advance();
      if (status == RequestReader::Status::failed) {
        EXPECT_TRUE(reader.error()) << input;
        break;
      }
      if (status == RequestReader::Status::complete) {
        ASSERT_LE(reader.body().size(), kMaxBody) << input;
        ASSERT_FALSE(reader.head().method.empty()) << input;
        ASSERT_FALSE(reader.head().target.empty()) << input;
        reader.next();
        ++completed;
        continue;
      }
      if (at == input.size()) {
        break;
      }
      const auto room = reader.prepare();
      ASSERT_FALSE(room.empty());
      const std::size_t n = std::min<std::size_t>({1 + rng() % 40, room.size(), input.size() - at});
      std::memcpy(room.data(), input.data() + at, n);
      reader.commit(n);
      at += n;
    }
    ASSERT_LE(completed, 3) << input;
    stats[completed]++;
  }
  EXPECT_GT(stats[3], 1000);  // many survive every edit: the edits are not all fatal at once
}

}  // namespace
}  // namespace infergate::http
