#include "bench/server_metrics.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <charconv>

#include "bench/failure.hpp"
#include "core/clock.hpp"
#include "http/fetch.hpp"

namespace infergate::bench {

namespace net = boost::asio;

namespace {

struct Gauge {
  std::string_view name;
  std::optional<double> ServerSample::*field;
};

constexpr Gauge kGauges[] = {
    {"vllm:num_requests_waiting", &ServerSample::waiting},
    {"sglang:num_queue_reqs", &ServerSample::waiting},
    {"vllm:num_requests_running", &ServerSample::running},
    {"sglang:num_running_reqs", &ServerSample::running},
    {"vllm:kv_cache_usage_perc", &ServerSample::kv_cache_usage},
    {"vllm:gpu_cache_usage_perc", &ServerSample::kv_cache_usage},
    {"sglang:token_usage", &ServerSample::kv_cache_usage},
};

}  // namespace

ServerSample parse_server_metrics(std::string_view text) {
  ServerSample sample;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const std::size_t name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos) {
      continue;
    }
    const std::string_view name = line.substr(0, name_end);
    for (const auto& gauge : kGauges) {
      if (name != gauge.name) {
        continue;
      }
      // The value follows the labels (which may hold spaces inside quotes) after the last '}'.
      const std::size_t labels_end = line.find('}');
      std::string_view rest = line.substr(labels_end == std::string_view::npos ? name_end : labels_end + 1);
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(' ')));
      rest = rest.substr(0, rest.find(' '));
      double value = 0;
      const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
      if (ec == std::errc{}) {
        auto& slot = sample.*gauge.field;
        slot = slot.value_or(0) + value;
      }
    }
  }
  return sample;
}

ServerMetricsScraper::ServerMetricsScraper(const http::Url& url, std::chrono::milliseconds interval,
                                           http::TlsOptions tls)
    : thread_([this, url, interval, tls] { run(url, interval, tls); }) {}

ServerMetricsScraper::~ServerMetricsScraper() {
  stop_ = true;
  if (thread_.joinable()) {
    thread_.join();
  }
}

std::vector<ServerSample> ServerMetricsScraper::finish() {
  stop_ = true;
  if (thread_.joinable()) {
    thread_.join();
  }
  const std::lock_guard lock(mutex_);
  return samples_;
}

std::optional<std::string> ServerMetricsScraper::error() const {
  const std::lock_guard lock(mutex_);
  return error_;
}

void ServerMetricsScraper::run(http::Url url, std::chrono::milliseconds interval, http::TlsOptions tls) {
  net::io_context io{1};
  net::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        net::steady_timer timer(co_await net::this_coro::executor);
        const std::vector<http::Header> headers{{"Accept", "text/plain"}};
        while (!stop_) {
          const auto started = std::chrono::steady_clock::now();
          auto response = co_await http::fetch(co_await net::this_coro::executor, url, "GET", url.path, headers, "",
                                               std::chrono::seconds(5), tls);
          {
            const std::lock_guard lock(mutex_);
            if (!response) {
              const auto& e = response.error();
              error_ = error_.value_or(
                  failure_message(e.ec, e.while_connecting ? Phase::connect : Phase::request, url.to_string()));
            } else if (response->head.status != 200) {
              error_ = error_.value_or(fmt::format("{} answered HTTP {}", url.to_string(), response->head.status));
            } else {
              ServerSample sample = parse_server_metrics(response->body);
              sample.ns = monotonic_ns();
              samples_.push_back(sample);
            }
          }
          // Wake often enough to stop promptly, scrape once per interval.
          while (!stop_ && std::chrono::steady_clock::now() - started < interval) {
            timer.expires_after(std::chrono::milliseconds(20));
            co_await timer.async_wait(net::as_tuple(net::use_awaitable));
          }
        }
      },
      net::detached);
  io.run();
}

}  // namespace infergate::bench
