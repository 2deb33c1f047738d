#include "gateway/balancer.hpp"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <stdexcept>
#include <vector>

namespace infergate::gateway {
namespace {

class BalancerTest : public ::testing::Test {
 protected:
  std::array<Deployment, 3> deployments;
  std::vector<Deployment*> all{&deployments[0], &deployments[1], &deployments[2]};
};

TEST_F(BalancerTest, RoundRobinSpreadsEvenly) {
  auto balancer = make_balancer("round_robin");
  std::map<Deployment*, int> counts;
  for (int i = 0; i < 300; ++i) {
    ++counts[balancer->choose(all, {})];
  }
  for (Deployment* d : all) {
    EXPECT_EQ(counts[d], 100);
  }
}

TEST_F(BalancerTest, RetriesGoToDeploymentsNotYetTried) {
  for (const char* strategy : {"round_robin", "least_in_flight"}) {
    auto balancer = make_balancer(strategy);
    std::vector<Deployment*> tried;
    for (int i = 0; i < 3; ++i) {
      Deployment* d = balancer->choose(all, tried);
      EXPECT_EQ(std::count(tried.begin(), tried.end(), d), 0) << strategy;
      tried.push_back(d);
    }
    EXPECT_NE(balancer->choose(all, tried), nullptr) << strategy << ": with all tried, one is still chosen";
  }
}

TEST_F(BalancerTest, LeastInFlightPicksTheIdlest) {
  auto balancer = make_balancer("least_in_flight");
  deployments[0].in_flight = 5;
  deployments[1].in_flight = 1;
  deployments[2].in_flight = 3;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(balancer->choose(all, {}), &deployments[1]);
  }
}

TEST_F(BalancerTest, LeastInFlightAdaptsToASlowDeployment) {
  // A slow deployment keeps its requests longer; least-in-flight sends it less new work.
  auto balancer = make_balancer("least_in_flight");
  std::map<Deployment*, int> counts;
  std::vector<std::pair<Deployment*, int>> active;  // deployment, steps left
  for (int step = 0; step < 300; ++step) {
    Deployment* d = balancer->choose(all, {});
    ++counts[d];
    d->in_flight.fetch_add(1);
    active.emplace_back(d, d == &deployments[0] ? 10 : 2);
    for (auto it = active.begin(); it != active.end();) {
      if (--it->second == 0) {
        it->first->in_flight.fetch_sub(1);
        it = active.erase(it);
      } else {
        ++it;
      }
    }
  }
  EXPECT_LT(counts[&deployments[0]] * 2, counts[&deployments[1]]);
  EXPECT_LT(counts[&deployments[0]] * 2, counts[&deployments[2]]);
}

TEST_F(BalancerTest, InFlightGuardCounts) {
  {
    InFlightGuard a(deployments[0]);
    InFlightGuard b(deployments[0]);
    EXPECT_EQ(deployments[0].in_flight.load(), 2);
  }
  EXPECT_EQ(deployments[0].in_flight.load(), 0);
}

TEST_F(BalancerTest, WeightedIsExactOverACycle) {
  auto balancer = make_balancer("weighted");
  deployments[0].weight = 3;
  deployments[1].weight = 1;
  deployments[2].weight = 2;
  std::map<Deployment*, int> counts;
  for (int i = 0; i < 60; ++i) {
    ++counts[balancer->choose(all, {})];
  }
  EXPECT_EQ(counts[&deployments[0]], 30);
  EXPECT_EQ(counts[&deployments[1]], 10);
  EXPECT_EQ(counts[&deployments[2]], 20);
}

TEST_F(BalancerTest, LowestLatencyPrefersTheFasterAndAdaptsWhenItSlows) {
  auto balancer = make_balancer("lowest_latency");
  deployments[0].record_ttft(50'000);
  deployments[1].record_ttft(200'000);
  deployments[2].record_ttft(400'000);
  std::map<Deployment*, int> counts;
  for (int i = 0; i < 3000; ++i) {
    ++counts[balancer->choose(all, {})];
  }
  // Power of two choices: the fastest wins every pair it is in (2 of 3 pairs), the slowest none.
  EXPECT_NEAR(counts[&deployments[0]], 2000, 150);
  EXPECT_EQ(counts[&deployments[2]], 0);
  for (int i = 0; i < 20; ++i) {
    deployments[0].record_ttft(1'000'000);  // it slows down
  }
  counts.clear();
  for (int i = 0; i < 3000; ++i) {
    ++counts[balancer->choose(all, {})];
  }
  EXPECT_EQ(counts[&deployments[0]], 0);
  EXPECT_NEAR(counts[&deployments[1]], 2000, 150);
}

TEST_F(BalancerTest, LowestLatencyTriesUnmeasuredDeploymentsFirst) {
  auto balancer = make_balancer("lowest_latency");
  deployments[0].record_ttft(50'000);
  deployments[1].record_ttft(60'000);
  std::map<Deployment*, int> counts;
  for (int i = 0; i < 300; ++i) {
    ++counts[balancer->choose(all, {})];
  }
  EXPECT_GT(counts[&deployments[2]], 150);
}

TEST(Balancer, UnknownStrategyIsRejected) {
  EXPECT_THROW(make_balancer("random"), std::invalid_argument);
}

}  // namespace
}  // namespace infergate::gateway
