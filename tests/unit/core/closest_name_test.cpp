#include "core/closest_name.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace infergate {
namespace {

const std::vector<std::string> kOptions = {"--concurrency", "--requests", "--rate", "--duration", "--json"};

TEST(ClosestName, FindsTheNameASlipCameFrom) {
  EXPECT_EQ(closest_name("--concurency", kOptions), "--concurrency");  // a letter left out
  EXPECT_EQ(closest_name("--requets", kOptions), "--requests");
  EXPECT_EQ(closest_name("--JSON", kOptions), "--json");          // case is not a slip
  EXPECT_EQ(closest_name("--durtaion", kOptions), "--duration");  // two letters swapped
}

TEST(ClosestName, GuessesNothingWhenNoNameIsClose) {
  EXPECT_EQ(closest_name("--zzzzzz", kOptions), std::nullopt);
  EXPECT_EQ(closest_name("predict", std::vector<std::string>{"sim", "bench", "serve"}), std::nullopt);
  EXPECT_EQ(closest_name("x", std::vector<std::string>{}), std::nullopt);
  // One letter off is always close, even in a short name.
  EXPECT_EQ(closest_name("sin", std::vector<std::string>{"sim", "bench"}), "sim");
}

TEST(ClosestName, DidYouMeanIsAClauseToAppendOrNothing) {
  EXPECT_EQ(did_you_mean("--requets", kOptions), " (did you mean '--requests'?)");
  EXPECT_EQ(did_you_mean("--zzzzzz", kOptions), "");
}

}  // namespace
}  // namespace infergate
