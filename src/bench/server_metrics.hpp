#pragma once
// --server-metrics URL: the server's Prometheus /metrics read about once a second while a run
// goes, on a thread of its own, so its queue and KV-cache use sit on the run's time axis. vLLM's
// and SGLang's metric names are read (the simulator exports vLLM's).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/server_sample.hpp"
#include "http/client.hpp"
#include "http/url.hpp"

namespace infergate::bench {

// The gauges in a Prometheus text exposition, each summed over its label sets.
ServerSample parse_server_metrics(std::string_view text);

class ServerMetricsScraper {
 public:
  // Starts scraping at once; `url` is the metrics endpoint itself (http://host:port/metrics).
  ServerMetricsScraper(const http::Url& url, std::chrono::milliseconds interval, http::TlsOptions tls);
  ~ServerMetricsScraper();
  ServerMetricsScraper(const ServerMetricsScraper&) = delete;
  ServerMetricsScraper& operator=(const ServerMetricsScraper&) = delete;

  // Stops and returns what was read; `error` holds the first failure, if any.
  std::vector<ServerSample> finish();
  [[nodiscard]] std::optional<std::string> error() const;

 private:
  void run(http::Url url, std::chrono::milliseconds interval, http::TlsOptions tls);

  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<ServerSample> samples_;
  std::optional<std::string> error_;
  std::thread thread_;
};

}  // namespace infergate::bench
