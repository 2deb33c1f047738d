#include "gateway/charge.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace infergate::gateway {
namespace {

struct Case {
  const char* name;
  std::optional<openai::Usage> usage;
  int status;
  std::int64_t text_events;
  std::int64_t prompt;
  std::int64_t completion;
  std::string source;
};

TEST(Charge, TakesTheUpstreamsCountsHeldToWhatCanBeChargedElseAnEstimate) {
  openai::RequestView view;
  view.prompt_tokens_estimate = 30;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const Case cases[] = {
      {"the upstream's usage", openai::Usage{12, 7}, 200, 7, 12, 7, "usage"},
      {"usage on an error", openai::Usage{12, 0}, 500, 0, 12, 0, "usage"},
      // A negative count would lower the key's window for every request beside this one.
      {"negative counts", openai::Usage{-5, -1'000'000}, 200, 3, 0, 0, "usage"},
      {"a count beyond int64 read back as -1", openai::Usage{12, -1}, 200, 3, 12, 0, "usage"},
      {"counts whose sum overflows", openai::Usage{kMax, kMax}, 200, 3, kMostTokensCharged, kMostTokensCharged,
       "usage"},
      {"a stream cut before its usage", std::nullopt, 200, 9, 30, 9, "estimate"},
      {"a client gone mid-stream", std::nullopt, 499, 4, 30, 4, "estimate"},
      {"a client gone before any text", std::nullopt, 499, 0, 0, 0, "none"},
      {"an upstream error", std::nullopt, 503, 0, 0, 0, "none"},
      {"refused before an upstream", std::nullopt, 0, 0, 0, 0, "none"},
  };
  for (const Case& c : cases) {
    const Charge got = charge(view, c.usage, c.status, c.text_events);
    EXPECT_EQ(got.prompt, c.prompt) << c.name;
    EXPECT_EQ(got.completion, c.completion) << c.name;
    EXPECT_EQ(got.source, c.source) << c.name;
    EXPECT_GE(got.prompt + got.completion, 0) << c.name;
  }
}

}  // namespace
}  // namespace infergate::gateway
