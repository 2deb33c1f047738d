#include "sim/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace infergate::sim {

namespace {

constexpr int kMaxDevices = 4096;

std::string seconds(double s) {
  if (s >= 1) {
    return fmt::format("{:.2f} s", s);
  }
  if (s >= 1e-3) {
    return fmt::format("{:.2f} ms", s * 1e3);
  }
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string count(double n) {
  if (n >= 1e12) {
    return fmt::format("{:.1f} trillion", n / 1e12);
  }
  if (n >= 1e9) {
    return fmt::format("{:.1f} billion", n / 1e9);
  }
  return fmt::format("{:.0f}", n);
}

PerfModel model_on(const Profile& profile, int devices) {
  Profile p = profile;
  p.devices = devices;
  return PerfModel(p);
}

// The least device count whose memory holds the weights and one sequence of `context`: powers of
// two for tensor parallelism (what serving engines accept); for dataflow chips, from the count the
// weights alone need, up in small steps.
int devices_needed(const Profile& profile, int context) {
  const bool dataflow = profile.hardware->sram_dataflow;
  for (int g = model_on(profile, 1).devices(); g <= kMaxDevices; g = dataflow ? g + std::max(1, g / 64) : g * 2) {
    const PerfModel m = model_on(profile, g);
    if (m.kv_budget_bytes() >= m.kv_bytes(context)) {
      return g;
    }
  }
  throw std::invalid_argument(fmt::format("{} does not fit on {} devices with {} tokens of context",
                                          profile.to_string(), kMaxDevices, context));
}

// What the shorter of a step's memory and compute time adds where they do not overlap fully.
std::string serial_part(const StepTime& step, const Efficiency& e) {
  if (e.serial_share <= 0) {
    return {};
  }
  return fmt::format(" The two overlap but for {:.0f}% of the shorter: {} more.", e.serial_share * 100,
                     seconds(step.serial));
}

// Where the family runs routed experts below the dense rates: how much of a step that concerns.
std::string expert_part(const PerfModel& model, double tokens) {
  const Efficiency& e = model.efficiency();
  if (model.profile().model->experts == 0 || e.expert_efficiency >= 1) {
    return {};
  }
  return fmt::format(
      " The routed experts' {} of those bytes, and their share of the FLOPs, go at {:.0f}% of those rates "
      "(a few rows per expert per kernel tile).",
      format_bytes(model.expert_bytes_read(tokens) / model.devices()), e.expert_efficiency * 100);
}

}  // namespace

std::string format_bytes(double b) {
  if (b >= 1e12) {
    return fmt::format("{:.2f} TB", b / 1e12);
  }
  if (b >= 1e9) {
    return fmt::format("{:.1f} GB", b / 1e9);
  }
  if (b >= 1e6) {
    return fmt::format("{:.1f} MB", b / 1e6);
  }
  return fmt::format("{:.1f} kB", b / 1e3);
}

RooflineResult roofline(const Profile& profile, const RooflineQuery& query) {
  RooflineResult r;
  r.devices_asked = profile.devices;
  r.devices_needed = devices_needed(profile, query.context);
  r.fits = profile.hardware->sram_dataflow || r.devices_needed <= profile.devices;
  r.profile = profile;
  r.profile.devices = std::max(profile.devices, r.devices_needed);
  const PerfModel model = model_on(profile, r.profile.devices);
  r.profile.devices = model.devices();

  const double g = model.devices();
  r.weight_bytes = model.weight_bytes();
  r.weight_bytes_per_device = r.weight_bytes / g;
  r.usable_bytes_per_device = profile.hardware->memory_bytes * model.efficiency().memory_utilization;
  r.kv_bytes_per_token = model.kv_bytes_per_token();
  r.kv_bytes_per_sequence = model.kv_bytes(query.context);
  r.max_sequences = static_cast<int>(
      std::min<double>(std::floor(std::max(0.0, model.kv_budget_bytes()) / r.kv_bytes_per_sequence), 1 << 30));

  r.ideal_decode_tps = g * profile.hardware->memory_bw / model.weight_bytes_read(1);
  r.decode_step = model.step_time(model.decode_shape(1, query.context));
  r.decode_tps = 1.0 / r.decode_step.total;

  r.batch = std::clamp(r.max_sequences, 1, query.max_batch);
  r.batch_step = model.step_time(model.decode_shape(r.batch, query.context));
  r.batch_tps = r.batch / r.batch_step.total;
  r.batch_tps_per_stream = 1.0 / r.batch_step.total;
  r.batch_bound = r.batch_step.bound();
  if (r.batch == r.max_sequences && r.batch_bound != Bound::compute) {
    r.batch_bound = Bound::capacity;  // more memory would let the batch, and the throughput, grow
  }

  r.prefill_step = model.step_time(PerfModel::prefill_shape(query.prompt_tokens));
  r.prefill_seconds = r.prefill_step.total;
  return r;
}

std::string explain(const RooflineResult& r, const RooflineQuery& query) {
  const auto& m = *r.profile.model;
  const auto& hw = *r.profile.hardware;
  const auto& p = *r.profile.precision;
  const PerfModel model(r.profile);
  const Efficiency& e = model.efficiency();
  const int g = r.profile.devices;
  const bool dataflow = hw.sram_dataflow;
  std::string out = fmt::format("{} in {} on {} x {}\n", m.name, p.id, g, hw.name);

  out += fmt::format("\n1. Weights. {} parameters x {} bytes each = {}.", count(m.params), p.weight_bytes_per_param,
                     format_bytes(r.weight_bytes));
  if (dataflow) {
    out += fmt::format(
        " Each chip holds {} of SRAM; keeping a fifth free for activations and the KV cache, the "
        "weights need {} chips ({} each).\n",
        format_bytes(hw.memory_bytes), g, format_bytes(r.weight_bytes_per_device));
  } else {
    out += fmt::format(" Over {} device{}: {} each, of {} usable ({:.0f}% of {}).", g, g > 1 ? "s" : "",
                       format_bytes(r.weight_bytes_per_device), format_bytes(r.usable_bytes_per_device),
                       e.memory_utilization * 100, format_bytes(hw.memory_bytes));
    out += r.fits ? " They fit.\n"
                  : fmt::format(" They do not fit on {} device{}: it takes {} (the figures below are for {}).\n",
                                r.devices_asked, r.devices_asked > 1 ? "s" : "", r.devices_needed, g);
  }

  out += fmt::format(
      "\n2. KV cache. Every token keeps a key and a value for each of {} layers x {} KV heads x {} "
      "dimensions x {} bytes: 2 x {} x {} x {} x {} = {} per token.",
      m.layers, m.kv_heads, m.head_dim, p.kv_bytes_per_element, m.layers, m.kv_heads, m.head_dim,
      p.kv_bytes_per_element, format_bytes(r.kv_bytes_per_token));
  if (m.sliding_layers > 0) {
    out += fmt::format(" {} of the layers keep only the last {} tokens.", m.sliding_layers, m.sliding_window);
  }
  out += fmt::format(" A sequence of {} tokens holds {}; the memory left after the weights holds {} of them.\n",
                     query.context, format_bytes(r.kv_bytes_per_sequence), r.max_sequences);

  const double active_read = model.weight_bytes_read(1);
  out += fmt::format(
      "\n3. The bandwidth ceiling. Each new token reads every {}weight once: {}. At {} x {}/s one stream "
      "cannot pass {}/s / {} = {:.1f} tokens/s.",
      m.experts > 0 ? "active " : "", format_bytes(active_read), g, format_bytes(hw.memory_bw),
      format_bytes(g * hw.memory_bw), format_bytes(active_read), r.ideal_decode_tps);
  if (dataflow) {
    out += " For a dataflow pipeline this over-predicts: a token passes the chips one after another.\n";
  } else {
    out += "\n";
  }

  const StepTime& d = r.decode_step;
  out += "\n4. One stream, as engines really run. ";
  if (dataflow) {
    out += fmt::format(
        "A token crosses {} chips. On each: reading its weights takes {} ({:.0f}% of SRAM bandwidth), its "
        "{:.2f} layers take at least {} each ({}), and the hop to the next chip {}. The slowest of the "
        "first three plus the hop, {} times: {} per token.",
        g, seconds(d.memory / g), e.memory * 100, static_cast<double>(m.layers) / g, seconds(e.layer_latency_s),
        seconds(d.layer_latency / g), seconds(e.hop_latency_s), g, seconds(d.total));
  } else {
    out += fmt::format(
        "Reading {} of weights and KV per device at {:.0f}% of peak bandwidth takes {}; the {} of "
        "arithmetic at {:.0f}% of peak takes {}.",
        format_bytes((model.weight_bytes_read(1) + r.kv_bytes_per_sequence) / g), e.memory * 100, seconds(d.memory),
        count(2 * m.active_params) + " FLOP", model.compute_efficiency() * 100, seconds(d.compute));
    out += expert_part(model, 1);
    out += serial_part(d, e);
    if (d.interconnect > 0) {
      out += fmt::format(" Tensor parallelism adds 2 all-reduces per layer over the {}/s interconnect: {}.",
                         format_bytes(hw.interconnect_bw), seconds(d.interconnect));
    }
    const std::string per_layer =
        e.layer_overhead_s > 0 ? fmt::format(" ({} per layer for {} layers)", seconds(e.layer_overhead_s), m.layers)
                               : "";
    out += fmt::format(" With {} of fixed cost per step{}, a token takes {}.", seconds(d.overhead), per_layer,
                       seconds(d.total));
  }
  out += fmt::format(" That is {:.1f} tokens/s, bound by {}.\n", r.decode_tps, to_string(d.bound()));

  const StepTime& b = r.batch_step;
  out += fmt::format(
      "\n5. The largest batch. {} sequences of {} tokens fit; one step for all of them takes {} ({} bound), "
      "so the server makes {:.0f} tokens/s in all and {:.1f} per stream. ",
      r.batch, query.context, seconds(b.total), to_string(b.bound()), r.batch_tps, r.batch_tps_per_stream);
  out += r.batch_bound == Bound::capacity
             ? "Memory capacity binds: with room for more sequences the same step would serve more.\n"
             : fmt::format("{} binds: more memory would not raise the throughput.\n", to_string(r.batch_bound));

  const StepTime& f = r.prefill_step;
  const StepShape prompt = PerfModel::prefill_shape(query.prompt_tokens);
  out += fmt::format(
      "\n6. Prefill. A {}-token prompt is computed in one pass: 2 x {} parameters x {} tokens = {} FLOP in "
      "the linear layers at {:.0f}% of {} x {} FLOP/s, and {} FLOP of attention at {:.0f}% of {} x {} FLOP/s, "
      "take {}; reading the weights takes {}.{}{} Time to first token (no queue): {}, bound by {}.\n",
      query.prompt_tokens, count(m.active_params), query.prompt_tokens, count(model.linear_flops(prompt)),
      model.compute_efficiency() * 100, g, count(model.peak_flops()), count(model.attention_flops(prompt)),
      model.attention_compute_efficiency() * 100, g, count(model.attention_peak_flops()), seconds(f.compute),
      seconds(f.memory), expert_part(model, query.prompt_tokens), serial_part(f, e), seconds(f.total),
      to_string(f.bound()));
  return out;
}

}  // namespace infergate::sim
