#include "bench/records_jsonl.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "bench/request_metrics.hpp"
#include "core/output_file.hpp"

namespace infergate::bench {

namespace json = boost::json;

std::string record_json(const RequestRecord& r, std::span<const std::string> models) {
  json::object o{
      {"index", r.index},
      {"run", r.run},
      {"conversation", r.conversation},
      {"turn", r.turn},
      {"status", r.ok() ? "ok" : "error"},
      {"http_status", r.http_status},
      {"due_ns", r.due_ns},
      {"dispatch_ns", r.dispatch_ns},
      {"sent_ns", r.sent_ns},
      {"first_token_ns", r.first_token_ns},
      {"last_byte_ns", r.last_byte_ns},
      {"requested_input_tokens", r.requested_input_tokens},
      {"requested_output_tokens", r.requested_output_tokens},
      {"events", r.events},
      {"text_events", r.text_events.size()},
  };
  if (r.model < models.size()) {
    o["model"] = models[r.model];
  }
  if (r.level > 0) {
    o["level"] = r.level;
  }
  if (!r.ok()) {
    o["error_class"] = r.error_class;
    o["error"] = r.error_message;
  } else if (!r.text_events.empty()) {
    std::vector<double> itl;
    const RequestMetrics m = measure_request(r, itl);
    o["ttft_ms"] = m.ttft_ms;
    o["e2e_ms"] = m.e2e_ms;
    o["tpot_ms"] = m.tpot_ms ? json::value(*m.tpot_ms) : json::value(nullptr);
    o["output_tokens"] = m.output_tokens;
    o["token_source"] = m.tokens_from_usage ? "usage" : "events";
    if (r.called_tool) {
      o["called_tool"] = true;
    }
  }
  if (r.usage) {
    o["usage"] =
        json::object{{"prompt_tokens", r.usage->prompt_tokens}, {"completion_tokens", r.usage->completion_tokens}};
  }
  if (r.trace) {
    o["server_trace"] = json::object{{"arrival_ns", r.trace->arrival_ns},
                                     {"first_token_ns", r.trace->first_token_ns},
                                     {"last_token_ns", r.trace->last_token_ns}};
  }
  return json::serialize(o);
}

void write_records_jsonl(const std::string& path, const std::vector<RequestRecord>& records,
                         std::span<const std::string> models) {
  OutputFile file(path);
  for (const auto& r : records) {
    file.append(record_json(r, models));
    file.append("\n");
  }
  file.commit();
}

}  // namespace infergate::bench
