#include "gateway/control_plane.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <thread>

namespace infergate::gateway {
namespace {

class ControlPlaneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("infergate-control-" + std::to_string(::getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    config.master_key = "master-key-for-tests";
    config.keys_db = (dir / "keys.db").string();
    config.ledger_journal = (dir / "ledger.jsonl").string();
    config.refresh = std::chrono::hours(1);  // refreshed by hand below
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // A key with `settings`, and the record a request presenting it authenticates as.
  std::shared_ptr<const KeyRecord> key_with(ControlPlane& control, const KeySettings& settings) {
    const auto created = control.store().create(settings);
    control.cache().refresh();
    auto auth = control.authenticate("Bearer " + created.key);
    EXPECT_TRUE(std::holds_alternative<std::shared_ptr<const KeyRecord>>(auth));
    bearer = "Bearer " + created.key;
    return std::get<std::shared_ptr<const KeyRecord>>(auth);
  }
  std::shared_ptr<const KeyRecord> again(ControlPlane& control) {
    return std::get<std::shared_ptr<const KeyRecord>>(control.authenticate(bearer));
  }

  std::filesystem::path dir;
  AuthConfig config;
  std::string bearer;
};

TEST_F(ControlPlaneTest, ParallelSlotsAreHeldByTicketsAndOutliveAKeyRefresh) {
  ControlPlane control(config);
  KeySettings settings;
  settings.max_parallel = 2;
  auto key = key_with(control, settings);
  auto first = control.admit(key, "llama", 10);
  auto second = control.admit(key, "llama", 10);
  ASSERT_TRUE(std::holds_alternative<Ticket>(first));
  ASSERT_TRUE(std::holds_alternative<Ticket>(second));
  control.cache().refresh();  // a new snapshot of the key: it must still see both slots taken
  auto refused = control.admit(again(control), "llama", 10);
  ASSERT_TRUE(std::holds_alternative<Refusal>(refused));
  EXPECT_EQ(std::get<Refusal>(refused).error.status, 429);
  EXPECT_EQ(std::get<Refusal>(refused).error.code, "parallel_limit_exceeded");

  Ticket moved = std::get<Ticket>(std::move(first));  // a moved ticket releases its slot once
  first = Refusal{};
  EXPECT_TRUE(std::holds_alternative<Refusal>(control.admit(again(control), "llama", 10)));
  { const Ticket gone = std::move(moved); }
  EXPECT_TRUE(std::holds_alternative<Ticket>(control.admit(again(control), "llama", 10)));
  auto third = control.admit(again(control), "llama", 10);
  ASSERT_TRUE(std::holds_alternative<Ticket>(third));  // the one above released its slot at once
  EXPECT_TRUE(std::holds_alternative<Refusal>(control.admit(again(control), "llama", 10)));
}

TEST_F(ControlPlaneTest, RpmAndTpmCountPerModelAcrossRefreshesAndSettleToRealUse) {
  // The windows are the wall clock's minutes: start well inside one, so the test stays in it.
  const auto into_minute = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
               .count() %
           kRateWindowMs;
  };
  while (into_minute() > kRateWindowMs - 5'000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ControlPlane control(config);
  KeySettings settings;
  settings.rpm = 3;
  settings.tpm = 1000;
  auto key = key_with(control, settings);
  auto a = control.admit(key, "llama", 600);
  ASSERT_TRUE(std::holds_alternative<Ticket>(a));
  const Ticket& ticket = std::get<Ticket>(a);
  ASSERT_TRUE(ticket.limited());
  EXPECT_EQ(ticket.requests()->remaining, 2);
  EXPECT_EQ(ticket.tokens()->remaining, 400);

  control.cache().refresh();
  auto too_many = control.admit(again(control), "llama", 600);  // 1200 > 1000 reserved in this window
  ASSERT_TRUE(std::holds_alternative<Refusal>(too_many));
  EXPECT_EQ(std::get<Refusal>(too_many).error.type, "tokens");

  ControlPlane::settle(ticket, 100);  // the request used 100 of its 600: 500 come back
  auto b = control.admit(again(control), "llama", 600);
  ASSERT_TRUE(std::holds_alternative<Ticket>(b));
  EXPECT_EQ(std::get<Ticket>(b).tokens()->remaining, 300);
  EXPECT_EQ(std::get<Ticket>(b).requests()->remaining, 1);

  auto other = control.admit(again(control), "gemma", 900);  // another model has its own window
  ASSERT_TRUE(std::holds_alternative<Ticket>(other));
  EXPECT_EQ(std::get<Ticket>(other).requests()->remaining, 2);
  // Back to the first model: its window again, not the one used last.
  auto c = control.admit(again(control), "llama", 100);
  ASSERT_TRUE(std::holds_alternative<Ticket>(c));
  EXPECT_EQ(std::get<Ticket>(c).requests()->remaining, 0);
  EXPECT_EQ(std::get<Ticket>(c).tokens()->remaining, 200);
  auto d = control.admit(again(control), "gemma", 50);
  ASSERT_TRUE(std::holds_alternative<Ticket>(d));
  EXPECT_EQ(std::get<Ticket>(d).requests()->remaining, 1);
  EXPECT_EQ(std::get<Ticket>(d).tokens()->remaining, 50);
}

// A reservation below the prompt would lower the key's count for every request beside it: a
// negative max_tokens (which some servers read as "no limit") must not buy room under the TPM.
TEST(ControlPlaneReservation, IsThePromptAndMaxTokensNeverLessThanThePromptAndNeverOverflowing) {
  constexpr std::int64_t kMost = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(ControlPlane::reservation(100, 50), 150);
  EXPECT_EQ(ControlPlane::reservation(100, std::nullopt), 100);
  EXPECT_EQ(ControlPlane::reservation(100, 0), 100);
  EXPECT_EQ(ControlPlane::reservation(100, -1'000'000'000'000), 100);
  EXPECT_EQ(ControlPlane::reservation(100, kMost), kMost);
  EXPECT_EQ(ControlPlane::reservation(100, kMost - 99), kMost);
}

TEST_F(ControlPlaneTest, AKeyWithoutRateLimitsReportsNone) {
  ControlPlane control(config);
  auto admitted = control.admit(key_with(control, KeySettings{}), "llama", 10);
  ASSERT_TRUE(std::holds_alternative<Ticket>(admitted));
  EXPECT_FALSE(std::get<Ticket>(admitted).limited());
}

}  // namespace
}  // namespace infergate::gateway
