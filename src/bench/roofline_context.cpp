#include "bench/roofline_context.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

namespace infergate::bench {

namespace json = boost::json;

RooflineFractions roofline_fractions(const RooflineContext& c, const BenchSummary& s) {
  RooflineFractions f;
  if (s.tpot_ms.p50 > 0 && c.ideal_decode_tps > 0) {
    f.stream_decode = 1000.0 / s.tpot_ms.p50 / c.ideal_decode_tps;
  }
  if (c.batch_tps > 0 && s.output_tokens_per_s > 0) {  // no share of it for a run that produced nothing
    f.throughput = s.output_tokens_per_s / c.batch_tps;
  }
  if (c.prefill_ms > 0 && s.ttft_ms.count > 0) {
    f.ttft_over_prefill = s.ttft_ms.p50 / c.prefill_ms;
  }
  return f;
}

void print_roofline(std::FILE* out, const RooflineContext& c, const BenchSummary& s) {
  const RooflineFractions f = roofline_fractions(c, s);
  if (prompt_only(s)) {  // nothing decoded: only the prefill ceiling bears on the run
    fmt::print(out, "  roofline      {}: a request's input prefills in {:.2f} ms\n", c.profile, c.prefill_ms);
  } else {
    fmt::print(out,
               "  roofline      {}: one stream decodes at most {:.1f} tok/s ({:.1f} at calibrated efficiency), "
               "{} streams {:.1f} tok/s; the prompt prefills in {:.2f} ms\n",
               c.profile, c.ideal_decode_tps, c.decode_tps, c.batch, c.batch_tps, c.prefill_ms);
  }
  std::vector<std::string> measured;
  if (f.stream_decode) {
    measured.push_back(
        fmt::format("a stream decodes at {:.0f}% of the ceiling (1000 / TPOT p50)", *f.stream_decode * 100));
  }
  if (f.throughput) {
    measured.push_back(fmt::format("throughput is {:.1f}% of the largest batch's", *f.throughput * 100));
  }
  if (f.ttft_over_prefill) {
    measured.push_back(fmt::format("TTFT p50 is {:.1f}x the prefill time", *f.ttft_over_prefill));
  }
  if (!measured.empty()) {
    fmt::print(out, "                measured: {}\n", fmt::join(measured, ", "));
  }
}

json::object roofline_json(const RooflineContext& c) {
  return json::object{{"profile", c.profile},
                      {"ideal_decode_tok_s_per_stream", c.ideal_decode_tps},
                      {"decode_tok_s_per_stream", c.decode_tps},
                      {"batch", c.batch},
                      {"batch_tok_s", c.batch_tps},
                      {"prefill_ms", c.prefill_ms}};
}

std::optional<RooflineContext> roofline_from_json(const json::value* value) {
  if (value == nullptr || !value->is_object()) {
    return std::nullopt;
  }
  const auto& o = value->get_object();
  auto number = [&](std::string_view key) {
    const auto* v = o.if_contains(key);
    return v != nullptr && v->is_number() ? v->to_number<double>() : 0.0;
  };
  RooflineContext c;
  if (const auto* p = o.if_contains("profile"); p && p->is_string()) {
    c.profile = p->get_string();
  }
  c.ideal_decode_tps = number("ideal_decode_tok_s_per_stream");
  c.decode_tps = number("decode_tok_s_per_stream");
  c.batch = static_cast<int>(number("batch"));
  c.batch_tps = number("batch_tok_s");
  c.prefill_ms = number("prefill_ms");
  return c;
}

}  // namespace infergate::bench
