#include "bench/percentile_list.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace infergate::bench {
namespace {

std::string list_refusal(const std::string& text) {
  try {
    (void)parse_percentiles(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PercentileList, ExtrasAscendingOnceWithTheStandardFourLeftOut) {
  EXPECT_EQ(parse_percentiles("99.99, p25,99,99.9,25,50"), (std::vector<double>{25, 99.9, 99.99}));
  EXPECT_EQ(parse_percentiles("50,90,95,99"), std::vector<double>{});
  EXPECT_EQ(parse_percentiles("0,100"), (std::vector<double>{0, 100}));
}

TEST(PercentileList, AnItemThatIsNotAPercentileIsNamed) {
  EXPECT_EQ(list_refusal("99.9,nine"), "'nine' is not a percentile (e.g. 99.9 or p99.9)");
  EXPECT_EQ(list_refusal("99.9,"), "'' is not a percentile (e.g. 99.9 or p99.9)");
  EXPECT_EQ(list_refusal("99.9x"), "'99.9x' is not a percentile (e.g. 99.9 or p99.9)");
  EXPECT_EQ(list_refusal("p"), "'p' is not a percentile (e.g. 99.9 or p99.9)");
  EXPECT_EQ(list_refusal("nan"), "'nan' is not a percentile (e.g. 99.9 or p99.9)");
  EXPECT_EQ(list_refusal("100.5"), "percentile 100.5 is outside 0 to 100");
  EXPECT_EQ(list_refusal("-1"), "percentile -1 is outside 0 to 100");
}

TEST(PercentileList, MoreThanTheTableHoldsIsRefused) {
  EXPECT_EQ(parse_percentiles("1,2,3,4,5,6,7,8").size(), kMaxExtraPercentiles);
  EXPECT_EQ(list_refusal("1,2,3,4,5,6,7,8,9"), "9 percentiles beyond p50, p90, p95 and p99; at most 8 fit the table");
}

}  // namespace
}  // namespace infergate::bench
