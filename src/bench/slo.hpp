#pragma once
// Service-level objectives and goodput. `--slo ttft_p99=500ms,tpot_p99=50ms,e2e_p99=2s` sets, for
// each metric, a threshold and the percentile of requests that must meet it. A request is good
// when it succeeded and meets every threshold; goodput is good requests (and their output and
// prompt tokens) per second of the measured window, with failed requests in the denominator of the good share.
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/request_record.hpp"
#include "bench/summary.hpp"

namespace infergate::bench {

struct Slo {
  enum class Metric { ttft, tpot, itl, e2e };
  Metric metric = Metric::ttft;
  double percentile = 99;  // of requests that must meet the threshold
  double threshold_ms = 0;

  [[nodiscard]] std::string to_string() const;  // "ttft_p99=500ms"
};

// Throws std::invalid_argument naming the entry that does not parse.
std::vector<Slo> parse_slos(std::string_view text);
// "ttft_p99=500ms,tpot_p99=50ms": what parse_slos reads, each SLO's to_string() between separators.
std::string slo_list(const std::vector<Slo>& slos, std::string_view separator = ",");

struct Goodput {
  std::uint64_t good = 0;
  double good_share = 0;  // good / (completed + failed)
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double input_tokens_per_s = 0;    // prompt tokens of the good requests: embeddings' good rate
  bool met = true;                  // every SLO's percentile is within its threshold (and nothing failed beyond it)
  std::vector<std::string> broken;  // "ttft_p99 612.3ms > 500ms"
};

// `model`: over the records that asked for that model alone (RequestRecord::model), `summary`
// being theirs.
Goodput measure_goodput(const std::vector<RequestRecord>& records, const BenchSummary& summary,
                        const std::vector<Slo>& slos, std::optional<std::uint32_t> model = std::nullopt);

// The goodput of parts measured at the same time (workers), held to `slos`, whose summaries pool
// into `pooled`: good requests add up exactly and good rates add, as the pooled rates do; each
// SLO is judged on the pooled histograms (within their 0.5%), as a single process judges its
// samples.
Goodput pool_goodputs(std::span<const Goodput> parts, const BenchSummary& pooled, const std::vector<Slo>& slos);

// {"slos", "good_requests", "good_share", "requests_per_s", "output_tokens_per_s",
// "input_tokens_per_s", "met", "broken"}, and back: the goodput and the SLOs it was held to.
// The readers throw std::runtime_error naming what is wrong.
boost::json::object goodput_json(const Goodput& goodput, const std::vector<Slo>& slos);
Goodput goodput_from_json(const boost::json::object& goodput);
std::vector<Slo> goodput_slos(const boost::json::object& goodput);

}  // namespace infergate::bench
