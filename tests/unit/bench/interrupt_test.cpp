// A load stopped by a signal (request_stop, as the handlers call it) ends at once, keeps the
// requests that finished, and drops those in flight, on one event loop or several, sleeping or
// busy polling.
#include "bench/interrupt.hpp"

#include <gtest/gtest.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <future>
#include <string>
#include <thread>

#include "bench/runner.hpp"
#include "bench/workload.hpp"
#include "http/running_server.hpp"
#include "openai/api_base.hpp"

namespace infergate::bench {
namespace {

namespace net = boost::asio;
using namespace std::chrono_literals;

// An upstream whose every stream is 20 tokens, 5 ms apart: a request takes 100 ms.
http::Handler slow_streams() {
  return [](http::Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "text/event-stream");
    net::steady_timer pause(co_await net::this_coro::executor);
    for (int i = 0; i < 20; ++i) {
      pause.expires_after(5ms);
      co_await pause.async_wait(net::use_awaitable);
      if (co_await ex.write_chunk(R"(data: {"choices":[{"index":0,"delta":{"content":" x"}}]})"
                                  "\n\n")) {
        co_return;
      }
    }
    co_await ex.write_chunk(R"(data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}],)"
                            R"("usage":{"prompt_tokens":8,"completion_tokens":20,"total_tokens":28}})"
                            "\n\ndata: [DONE]\n\n",
                            true);
  };
}

struct StopCase {
  int threads;
  bool busy_poll;
};

class InterruptedLoad : public testing::TestWithParam<StopCase> {
 protected:
  void TearDown() override { clear_stop(); }
};

TEST_P(InterruptedLoad, EndsAtOnceWithTheRequestsThatFinished) {
  const http::RunningServer server(slow_streams());
  Target target;
  target.base = openai::parse_api_base("http://127.0.0.1:" + std::to_string(server.port));
  WorkloadOptions options;
  options.model = "m";
  options.input = LengthDistribution::fixed(8);
  options.output = LengthDistribution::fixed(20);
  const Workload workload(options);
  LoadOptions load;
  load.concurrency = 4;
  load.requests = 100'000;  // far more than the run has time for
  load.threads = GetParam().threads;
  load.busy_poll = GetParam().busy_poll;
  std::atomic<std::uint64_t> done{0};
  const std::function<void(const Progress&)> on_progress = [&done](const Progress& p) { done = p.done; };
  auto run = std::async(std::launch::async, [&] { return run_load(target, workload, load, on_progress); });
  const auto waited = std::chrono::steady_clock::now();
  while (done < 4 && std::chrono::steady_clock::now() - waited < 20s) {
    std::this_thread::sleep_for(10ms);
  }
  const auto asked = std::chrono::steady_clock::now();
  request_stop(SIGINT);
  ASSERT_EQ(run.wait_for(5s), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 1s);
  const RunResult result = run.get();
  EXPECT_EQ(result.interrupted_by, SIGINT);
  EXPECT_GE(result.records.size(), 4U);    // at least a round of 100 ms streams
  EXPECT_LT(result.records.size(), 100U);  // and nothing like the whole run
  for (const RequestRecord& r : result.records) {
    EXPECT_TRUE(r.ok()) << r.error_message;  // those cut short by the stop are dropped, not failed
    EXPECT_EQ(r.text_events.size(), 20U);
  }
}

INSTANTIATE_TEST_SUITE_P(Loops, InterruptedLoad,
                         testing::Values(StopCase{1, true}, StopCase{1, false}, StopCase{2, true}),
                         [](const testing::TestParamInfo<StopCase>& info) {
                           return std::to_string(info.param.threads) + "Threads" +
                                  (info.param.busy_poll ? "BusyPolling" : "Sleeping");
                         });

TEST(StopRequest, TheFirstSignalIsTheOneKept) {
  EXPECT_EQ(stop_signal(), 0);
  request_stop(SIGTERM);
  request_stop(SIGINT);
  EXPECT_EQ(stop_signal(), SIGTERM);
  clear_stop();
  EXPECT_EQ(stop_signal(), 0);
}

}  // namespace
}  // namespace infergate::bench
