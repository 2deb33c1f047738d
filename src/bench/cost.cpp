#include "bench/cost.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace infergate::bench {

namespace json = boost::json;

namespace {

json::value optional_json(const std::optional<double>& v) {
  return v ? json::value(*v) : json::value(nullptr);
}

std::optional<double> optional_number(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) {
    return std::nullopt;
  }
  if (!v->is_number()) {
    throw std::runtime_error(fmt::format("a cost's '{}' is neither a number nor null", key));
  }
  return v->to_number<double>();
}

}  // namespace

Pricing parse_price(std::string_view text) {
  Pricing pricing;
  auto fail = [](std::string_view entry) {
    throw std::invalid_argument(fmt::format(
        "--price: '{}' is not in=USD or out=USD (US dollars per million tokens, e.g. in=0.15,out=0.60)", entry));
  };
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) {
      fail(entry);
    }
    const std::string_view name = entry.substr(0, eq);
    const std::string_view number = entry.substr(eq + 1);
    double value = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc{} || end != number.data() + number.size() || value < 0) {
      fail(entry);
    }
    if (name == "in" || name == "input") {
      pricing.input_per_million = value;
    } else if (name == "out" || name == "output") {
      pricing.output_per_million = value;
    } else {
      fail(entry);
    }
  }
  if (pricing.empty()) {
    fail("");
  }
  return pricing;
}

Cost measure_cost(const Pricing& pricing, const BenchSummary& summary, double tokens_per_s) {
  Cost cost;
  const bool by_input = prompt_only(summary);
  (by_input ? cost.input_tokens_per_s : cost.output_tokens_per_s) = tokens_per_s;
  if (pricing.input_per_million || pricing.output_per_million) {
    // The server's prompt count where it reported one; what was asked for otherwise.
    const auto prompt =
        static_cast<double>(summary.prompt_tokens > 0 ? summary.prompt_tokens : summary.requested_input_tokens);
    const auto output = static_cast<double>(summary.output_tokens);
    cost.run_usd =
        (pricing.input_per_million.value_or(0) * prompt + pricing.output_per_million.value_or(0) * output) / 1e6;
    if (output > 0) {
      cost.per_million_output_by_tokens = *cost.run_usd / output * 1e6;
    } else if (by_input && prompt > 0) {
      cost.per_million_input_by_tokens = *cost.run_usd / prompt * 1e6;
    }
    if (summary.completed > 0) {
      cost.per_request_usd = *cost.run_usd / static_cast<double>(summary.completed);
    }
  }
  if (pricing.hourly && tokens_per_s > 0) {
    (by_input ? cost.per_million_input_by_hour : cost.per_million_output_by_hour) =
        *pricing.hourly / (tokens_per_s * 3600) * 1e6;
  }
  return cost;
}

std::optional<double> headline_per_million(const Cost& cost) {
  for (const auto& figure : {cost.per_million_output_by_hour, cost.per_million_output_by_tokens,
                             cost.per_million_input_by_hour, cost.per_million_input_by_tokens}) {
    if (figure) {
      return figure;
    }
  }
  return std::nullopt;
}

void print_cost(std::FILE* out, const Pricing& pricing, const Cost& cost) {
  if (cost.per_million_output_by_tokens) {
    fmt::print(out,
               "  cost          ${:.4f} per million output tokens, prompts included (${:.6f} per request, ${:.4f} "
               "this run, at ${:g}/${:g} per million in/out)\n",
               *cost.per_million_output_by_tokens, cost.per_request_usd.value_or(0), cost.run_usd.value_or(0),
               pricing.input_per_million.value_or(0), pricing.output_per_million.value_or(0));
  }
  if (cost.per_million_output_by_hour) {
    fmt::print(out, "  cost          ${:.4f} per million output tokens at ${:g}/h and {:.1f} output tok/s\n",
               *cost.per_million_output_by_hour, *pricing.hourly, cost.output_tokens_per_s);
  }
  if (cost.per_million_input_by_tokens) {
    fmt::print(out, "  cost          ${:.4f} per million input tokens (${:.6f} per request, ${:.4f} this run)\n",
               *cost.per_million_input_by_tokens, cost.per_request_usd.value_or(0), cost.run_usd.value_or(0));
  }
  if (cost.per_million_input_by_hour) {
    fmt::print(out, "  cost          ${:.4f} per million input tokens at ${:g}/h and {:.1f} input tok/s\n",
               *cost.per_million_input_by_hour, *pricing.hourly, cost.input_tokens_per_s);
  }
}

json::object cost_json(const Pricing& pricing, const Cost& cost) {
  return json::object{
      {"price_in_per_million", optional_json(pricing.input_per_million)},
      {"price_out_per_million", optional_json(pricing.output_per_million)},
      {"hourly_usd", optional_json(pricing.hourly)},
      {"run_usd", optional_json(cost.run_usd)},
      {"per_request_usd", optional_json(cost.per_request_usd)},
      {"per_million_output_tokens_by_tokens", optional_json(cost.per_million_output_by_tokens)},
      {"per_million_output_tokens_by_hour", optional_json(cost.per_million_output_by_hour)},
      {"output_tokens_per_s", cost.output_tokens_per_s},
      {"per_million_input_tokens_by_tokens", optional_json(cost.per_million_input_by_tokens)},
      {"per_million_input_tokens_by_hour", optional_json(cost.per_million_input_by_hour)},
      {"input_tokens_per_s", cost.input_tokens_per_s},
  };
}

Cost cost_from_json(const json::object& o) {
  Cost cost;
  cost.run_usd = optional_number(o, "run_usd");
  cost.per_request_usd = optional_number(o, "per_request_usd");
  cost.per_million_output_by_tokens = optional_number(o, "per_million_output_tokens_by_tokens");
  cost.per_million_output_by_hour = optional_number(o, "per_million_output_tokens_by_hour");
  cost.output_tokens_per_s = optional_number(o, "output_tokens_per_s").value_or(0);
  cost.per_million_input_by_tokens = optional_number(o, "per_million_input_tokens_by_tokens");
  cost.per_million_input_by_hour = optional_number(o, "per_million_input_tokens_by_hour");
  cost.input_tokens_per_s = optional_number(o, "input_tokens_per_s").value_or(0);
  return cost;
}

Pricing pricing_from_cost_json(const json::object& cost) {
  return Pricing{optional_number(cost, "price_in_per_million"), optional_number(cost, "price_out_per_million"),
                 optional_number(cost, "hourly_usd")};
}

}  // namespace infergate::bench
