#include "sim/fault.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::sim {
namespace {

TEST(FaultInjector, NoRatesNoHeaderNoFault) {
  FaultInjector faults(FaultRates{});
  Fault f;
  ASSERT_FALSE(faults.plan("", f));
  EXPECT_FALSE(f.error_status);
  EXPECT_FALSE(f.rate_limit_after_s);
  EXPECT_EQ(f.stall_first.count(), 0);
  EXPECT_FALSE(f.reset_after_tokens);
  EXPECT_FALSE(f.malformed_after_tokens);
  EXPECT_EQ(faults.counters().errors + faults.counters().rate_limited + faults.counters().stalls, 0u);
}

TEST(FaultInjector, HeaderAsksForEachFault) {
  FaultInjector faults(FaultRates{});
  Fault f;
  ASSERT_FALSE(faults.plan(
      " error=503 , stall_first_ms=300,stall_between_ms=50, reset_after=5, malformed_after=0, no_usage,no_ignore_eos",
      f));
  EXPECT_EQ(f.error_status, 503);
  EXPECT_EQ(f.stall_first.count(), 300);
  EXPECT_EQ(f.stall_between.count(), 50);
  EXPECT_EQ(f.reset_after_tokens, 5);
  EXPECT_EQ(f.malformed_after_tokens, 0);
  EXPECT_TRUE(f.no_usage);
  EXPECT_TRUE(f.no_ignore_eos);
  Fault g;
  ASSERT_FALSE(faults.plan("rate_limit=7", g));
  EXPECT_EQ(g.rate_limit_after_s, 7);
  ASSERT_FALSE(faults.plan("error,rate_limit", g));
  EXPECT_EQ(g.error_status, 500);
  EXPECT_EQ(g.rate_limit_after_s, 1);
  EXPECT_EQ(faults.counters().errors, 2u);
  EXPECT_EQ(faults.counters().rate_limited, 1u);  // an error wins over the 429
}

TEST(FaultInjector, BadHeadersNameTheProblem) {
  FaultInjector faults(FaultRates{});
  Fault f;
  EXPECT_EQ(faults.plan("error=200", f), "x-infergate-fault: 'error' needs an HTTP status from 400 to 599");
  EXPECT_EQ(faults.plan("stall_first_ms", f), "x-infergate-fault: 'stall_first_ms' needs milliseconds (0 to 3600000)");
  EXPECT_EQ(faults.plan("reset_after=-1", f), "x-infergate-fault: 'reset_after' needs a number of tokens");
  auto unknown = faults.plan("explode", f);
  ASSERT_TRUE(unknown);
  EXPECT_NE(unknown->find("unknown fault 'explode'"), std::string::npos);
  EXPECT_EQ(faults.counters().errors, 0u);
}

TEST(FaultInjector, RatesHitAboutTheirShareReproducibly) {
  FaultRates rates;
  rates.error = 0.25;
  rates.error_status = 503;
  rates.reset = 0.5;
  FaultInjector a(rates);
  FaultInjector b(rates);
  int errors = 0;
  int resets = 0;
  for (int i = 0; i < 4000; ++i) {
    Fault fa;
    Fault fb;
    ASSERT_FALSE(a.plan("", fa));
    ASSERT_FALSE(b.plan("", fb));
    EXPECT_EQ(fa.error_status, fb.error_status);
    errors += fa.error_status == 503 ? 1 : 0;
    resets += fa.reset_after_tokens == 4 ? 1 : 0;
  }
  EXPECT_NEAR(errors, 1000, 120);
  EXPECT_NEAR(resets, 2000, 150);
  EXPECT_EQ(a.counters().errors, static_cast<std::uint64_t>(errors));
}

TEST(FaultInjector, TheHeaderOverridesTheRates) {
  FaultRates rates;
  rates.stall = 1;
  rates.stall_first = std::chrono::milliseconds(100);
  FaultInjector faults(rates);
  Fault f;
  ASSERT_FALSE(faults.plan("stall_first_ms=0", f));
  EXPECT_EQ(f.stall_first.count(), 0);
}

TEST(FaultInjector, RefusesRatesOutsideZeroToOne) {
  FaultRates rates;
  rates.malformed = 1.5;
  EXPECT_THROW(FaultInjector{rates}, std::invalid_argument);
  rates.malformed = 0;
  rates.error_status = 302;
  EXPECT_THROW(FaultInjector{rates}, std::invalid_argument);
}

TEST(FaultInjector, MetricsNameEveryKind) {
  FaultInjector faults(FaultRates{});
  Fault f;
  ASSERT_FALSE(faults.plan("reset_after=1", f));
  std::string out;
  faults.append_metrics(out);
  EXPECT_NE(out.find("infergate_sim_faults_total{kind=\"reset\"} 1\n"), std::string::npos);
  EXPECT_NE(out.find("infergate_sim_faults_total{kind=\"malformed\"} 0\n"), std::string::npos);
}

}  // namespace
}  // namespace infergate::sim
