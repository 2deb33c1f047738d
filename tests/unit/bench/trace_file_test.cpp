#include "bench/trace_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace infergate::bench {
namespace {

std::string trace_with(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string trace_error(const std::string& text) {
  const std::string path = trace_with("bad_trace.jsonl", text);
  try {
    load_trace(path);
  } catch (const std::runtime_error& e) {
    std::remove(path.c_str());
    return e.what();
  }
  std::remove(path.c_str());
  return "";
}

// Mooncake's lines, out of order: sent in the order of their times, from the first.
TEST(TraceFile, RequestsComeInTheOrderOfTheirTimesFromTheFirst) {
  const std::string path =
      trace_with("trace.jsonl", R"({"timestamp": 2500, "input_length": 700, "output_length": 9, "hash_ids": [4, 5]})"
                                "\n\n"
                                R"({"timestamp": 1000, "input_length": 30})"
                                "\n"
                                R"({"timestamp": 1000, "text_input": "three words here", "output_length": 2})"
                                "\n");
  const std::vector<TraceRequest> t = load_trace(path);
  std::remove(path.c_str());
  ASSERT_EQ(t.size(), 3u);
  EXPECT_DOUBLE_EQ(t[0].at_s, 0);
  EXPECT_EQ(t[0].input_tokens, 30);  // equal times keep the file's order
  EXPECT_FALSE(t[0].output_tokens.has_value());
  EXPECT_EQ(t[1].text, "three words here");
  EXPECT_DOUBLE_EQ(t[2].at_s, 1.5);
  EXPECT_EQ(t[2].output_tokens, 9);
  EXPECT_EQ(t[2].hash_ids, (std::vector<std::uint64_t>{4, 5}));
}

TEST(TraceFile, AProblemNamesTheLineAndField) {
  EXPECT_NE(trace_error(R"({"timestamp": 0, "input_length": 5})"
                        "\n"
                        R"({"input_length": 5})")
                .find("bad_trace.jsonl:2: 'timestamp'"),
            std::string::npos);
  EXPECT_NE(trace_error(R"({"timestamp": 0})").find("needs 'input_length' (tokens) or 'text_input'"),
            std::string::npos);
  EXPECT_NE(trace_error(R"({"timestamp": 0, "input_length": -3})").find("'input_length' must be a whole number"),
            std::string::npos);
  EXPECT_NE(trace_error(R"({"timestamp": 0, "input_length": 3, "output_length": 2.5})").find("'output_length'"),
            std::string::npos);
  EXPECT_NE(trace_error(R"({"timestamp": 0, "input_length": 10000001})").find("from 1 to 10,000,000"),
            std::string::npos);  // a bound on the text made up for it
  EXPECT_NE(trace_error(R"({"timestamp": 0, "input_length": 3, "hash_ids": [1, -1]})").find("'hash_ids' must hold"),
            std::string::npos);
  EXPECT_NE(trace_error(R"({"timestamp": 0, "text_input": "a b", "hash_ids": [1]})").find("has its own text"),
            std::string::npos);
  EXPECT_NE(trace_error("{\"timestamp\": 0,").find("bad_trace.jsonl:1: not valid JSON"), std::string::npos);
  EXPECT_NE(trace_error("\n\n").find("holds no requests"), std::string::npos);
  EXPECT_THROW(load_trace("/nonexistent/trace.jsonl"), std::runtime_error);
}

}  // namespace
}  // namespace infergate::bench
