#include "bench/client_check.hpp"

#include <gtest/gtest.h>

namespace infergate::bench {
namespace {

TEST(ClientCheck, AnIdleClientIsNotTheBottleneck) {
  const ClientCheck c = check_client(ClientLoad{10, 0.12, 1.0}, 0.05);
  EXPECT_FALSE(c.bound);
  EXPECT_TRUE(c.reason.empty());
}

TEST(ClientCheck, ABusyLoopOrLateSendsMarkTheClient) {
  const ClientCheck busy = check_client(ClientLoad{10, 0.93, 1.0}, 0.05);
  EXPECT_TRUE(busy.bound);
  EXPECT_EQ(busy.reason, "its event loop was busy 93% of the run (limit 80%)");

  const ClientCheck late = check_client(ClientLoad{10, 0.2, 1.0}, 4.5);
  EXPECT_TRUE(late.bound);
  EXPECT_EQ(late.reason, "requests went out late: p99 scheduling lag 4.50 ms (limit 1 ms)");

  const ClientCheck both = check_client(ClientLoad{10, 0.9, 1.0}, 2);
  EXPECT_NE(both.reason.find("; requests went out late"), std::string::npos) << both.reason;
}

TEST(ClientCheck, WithoutBusyPollingCpuShareIsJudged) {
  EXPECT_FALSE(check_client(ClientLoad{10, std::nullopt, 0.3}, 0).bound);
  const ClientCheck c = check_client(ClientLoad{10, std::nullopt, 0.95}, 0);
  EXPECT_TRUE(c.bound);
  EXPECT_EQ(c.reason, "it used CPU 95% of the run (limit 80%)");
}

}  // namespace
}  // namespace infergate::bench
