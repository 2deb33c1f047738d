#include "http/chunked_decoder.hpp"

#include <gtest/gtest.h>

#include <boost/beast/http/error.hpp>

#include <string>

namespace infergate::http {
namespace {

namespace bhttp = boost::beast::http;

struct Decoded {
  std::string body;
  std::size_t consumed = 0;  // of all the input
  boost::system::error_code error;
  bool done = false;
};

// Decodes `input` handed over in pieces of `step` bytes, each decoded in place in its own buffer.
Decoded decode(const std::string& input, std::size_t step) {
  ChunkedDecoder decoder;
  Decoded d;
  for (std::size_t at = 0; at < input.size() && !decoder.done(); at += step) {
    std::string piece = input.substr(at, step);
    const auto r = decoder.decode(piece.data(), piece.size(), piece.data());
    d.body.append(piece.data(), r.produced);
    d.consumed += r.consumed;
    if (r.error) {
      d.error = r.error;
      break;
    }
  }
  d.done = decoder.done();
  return d;
}

TEST(ChunkedDecoder, DecodesTheSameBodyHoweverTheInputIsCut) {
  const std::string input =
      "5\r\nhello\r\n1;name=value\r\n \r\nA\r\n0123456789\r\n1f\r\nthirty-one bytes of chunk data.\r\n0\r\n"
      "Trailer: x\r\n\r\nNEXT REQUEST";
  const std::string body = "hello 0123456789thirty-one bytes of chunk data.";
  for (std::size_t step = 1; step <= input.size(); ++step) {
    const Decoded d = decode(input, step);
    ASSERT_FALSE(d.error) << "step " << step;
    EXPECT_TRUE(d.done) << "step " << step;
    EXPECT_EQ(d.body, body) << "step " << step;
    EXPECT_EQ(d.consumed, input.find("NEXT")) << "step " << step;  // nothing after the body is taken
  }
}

TEST(ChunkedDecoder, WritesBeforeItsInputInOneBuffer) {
  std::string buffer = "xxxx3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  ChunkedDecoder decoder;
  const auto r = decoder.decode(buffer.data() + 4, buffer.size() - 4, buffer.data());
  EXPECT_FALSE(r.error);
  EXPECT_TRUE(decoder.done());
  EXPECT_EQ(buffer.substr(0, r.produced), "abcde");
}

TEST(ChunkedDecoder, RefusesBrokenFraming) {
  EXPECT_EQ(decode("g\r\n", 100).error, bhttp::error::bad_chunk);
  EXPECT_EQ(decode("\r\n", 100).error, bhttp::error::bad_chunk);
  EXPECT_EQ(decode("3\r\nabcX\r\n", 100).error, bhttp::error::bad_chunk);  // data longer than its size
  EXPECT_EQ(decode("3\nabc\r\n", 100).error, bhttp::error::bad_chunk);
  EXPECT_EQ(decode("3\r\rabc\r\n", 100).error, bhttp::error::bad_line_ending);
  EXPECT_EQ(decode("1000000000000000\r\n", 100).error, bhttp::error::bad_chunk);  // 16 digits: too large
  EXPECT_EQ(decode("3;a\nb\r\n", 100).error, bhttp::error::bad_chunk_extension);
  EXPECT_EQ(decode("3;" + std::string(5000, 'e') + "\r\n", 100).error, bhttp::error::bad_chunk_extension);
  EXPECT_EQ(decode("0\r\nX: " + std::string(5000, 't') + "\r\n\r\n", 100).error, bhttp::error::bad_field);
  EXPECT_EQ(decode("0\r\n\n", 100).error, bhttp::error::bad_line_ending);
  const Decoded partial = decode("5\r\nhel", 100);
  EXPECT_FALSE(partial.error);
  EXPECT_FALSE(partial.done);
  EXPECT_EQ(partial.body, "hel");
}

}  // namespace
}  // namespace infergate::http
