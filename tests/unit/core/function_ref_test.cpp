#include "core/function_ref.hpp"

#include <gtest/gtest.h>

#include <string>

namespace infergate {
namespace {

// Counts its copies, so a test can tell a reference from a copy.
struct Counter {
  int* copies;
  int calls = 0;
  explicit Counter(int* c) : copies(c) {}
  Counter(const Counter& other) : copies(other.copies), calls(other.calls) { ++*copies; }
  Counter& operator=(const Counter&) = delete;
  int operator()(int add) { return calls += add; }
};

int twice(FunctionRef<int(int)> f, int x) {
  f(x);
  return f(x);
}

TEST(FunctionRef, CallsTheCallableItself) {
  int copies = 0;
  Counter counter(&copies);
  EXPECT_EQ(twice(counter, 3), 6);
  EXPECT_EQ(counter.calls, 6);  // the original saw both calls
  EXPECT_EQ(copies, 0);
}

TEST(FunctionRef, TakesALambdaWrittenInTheCall) {
  std::string seen;
  int a = 1;
  int b = 2;
  int c = 3;
  const auto result = twice(
      [&](int x) {
        seen += std::to_string(x);
        return a + b + c + x;
      },
      4);
  EXPECT_EQ(result, 10);
  EXPECT_EQ(seen, "44");
}

TEST(FunctionRef, PassesArgumentsByReference) {
  std::string text = "a";
  const auto add_b = [](std::string& s) { s += "b"; };
  const FunctionRef<void(std::string&)> append = add_b;
  append(text);
  append(text);
  EXPECT_EQ(text, "abb");
}

}  // namespace
}  // namespace infergate
