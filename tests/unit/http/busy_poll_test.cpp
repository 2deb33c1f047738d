#include "http/busy_poll.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace infergate::http {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

TEST(BusyPoll, OffUntilGivenALongestWaitAndThenStartsThere) {
  BusyPoll poll;
  EXPECT_FALSE(poll.enabled());
  int polls = 0;
  EXPECT_FALSE(poll.wait([&] { return ++polls > 0; }));
  EXPECT_EQ(polls, 0);
  poll.set_longest(microseconds(10));
  EXPECT_TRUE(poll.enabled());
  EXPECT_EQ(poll.next_wait(), microseconds(10));
}

TEST(BusyPoll, HalvesToNothingAfterLongSleepsAndDoublesBackAfterShortOnes) {
  BusyPoll poll;
  poll.set_longest(microseconds(10));
  poll.slept(20'000);
  EXPECT_EQ(poll.next_wait(), microseconds(5));
  poll.slept(20'000);
  poll.slept(20'000);
  EXPECT_EQ(poll.next_wait(), nanoseconds(1'250));
  poll.slept(20'000);  // under 1 µs is no wait at all
  EXPECT_EQ(poll.next_wait(), nanoseconds(0));
  poll.slept(10'000);  // a sleep the longest wait would have caught
  EXPECT_EQ(poll.next_wait(), microseconds(1));
  poll.slept(3'000);
  poll.slept(3'000);
  poll.slept(3'000);
  EXPECT_EQ(poll.next_wait(), microseconds(8));
  poll.slept(3'000);
  EXPECT_EQ(poll.next_wait(), microseconds(10));  // never past the longest
}

TEST(BusyPoll, AWaitEndsWhenAPollFindsSomethingOrItsTimeIsUp) {
  BusyPoll poll;
  // Long enough that a descheduled test thread still polls more than once.
  poll.set_longest(std::chrono::milliseconds(50));
  int polls = 0;
  EXPECT_TRUE(poll.wait([&] { return ++polls == 3; }));
  EXPECT_EQ(polls, 3);

  polls = 0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(poll.wait([&] { return ++polls < 0; }));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  EXPECT_GE(polls, 2);  // every 2 µs, however late the clock lets it be
}

TEST(BusyPoll, AnInterruptEndsTheWaitInProgressOrTheNextOne) {
  BusyPoll poll;
  poll.set_longest(std::chrono::seconds(10));
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    poll.interrupt();
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(poll.wait([] { return false; }));
  other.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  EXPECT_TRUE(poll.wait([] { return false; }));  // not taken back yet: the next wait ends at once
  poll.woke();
  poll.set_longest(microseconds(50));
  EXPECT_FALSE(poll.wait([] { return false; }));
}

}  // namespace
}  // namespace infergate::http
