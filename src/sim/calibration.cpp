#include "sim/calibration.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "core/csv.hpp"
#include "core/parallel_for.hpp"
#include "core/text_file.hpp"
#include "sim/engine.hpp"
#include "sim/perf_model.hpp"

namespace infergate::sim {

// calibration/measurements.csv's text, generated into the build tree by CMake.
extern const char* const kBuiltinCalibrationCsv;

namespace {

constexpr const char* kColumns[] = {"id",       "hardware", "model", "precision", "devices",
                                    "engine",   "scenario", "batch", "input",     "output",
                                    "requests", "value",    "unit",  "source",    "note"};
constexpr std::size_t kColumnCount = std::size(kColumns);

Scenario parse_scenario(const std::string& text) {
  for (Scenario s : {Scenario::decode, Scenario::prefill, Scenario::ttft, Scenario::static_batch, Scenario::max_load}) {
    if (text == to_string(s)) {
      return s;
    }
  }
  throw std::invalid_argument(
      fmt::format("unknown scenario '{}' (decode, prefill, ttft, static_batch or max_load)", text));
}

template <class T>
T parse_number(const std::string& text, const char* column, T minimum) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < minimum) {
    throw std::invalid_argument(fmt::format("{} must be a number of at least {}, not '{}'", column, minimum, text));
  }
  return value;
}

// Simulated seconds until the engine has served every sequence submitted to it.
double run_to_completion(Engine& engine) {
  std::int64_t now = 0;
  while (engine.has_work()) {
    now = engine.start_step(now);
    engine.finish_step();
  }
  return static_cast<double>(now) * 1e-9;
}

bool spans_layer_counts(const std::vector<const CalibrationRow*>& rows, const Catalog& catalog) {
  std::set<int> layers;
  for (const CalibrationRow* row : rows) {
    if (const ModelSpec* model = catalog.find_model(row->model)) {
      layers.insert(model->layers);
    }
  }
  return layers.size() > 1;
}

bool spans_compute_widths(const std::vector<const CalibrationRow*>& rows, const Catalog& catalog) {
  bool eight = false;
  bool sixteen = false;
  for (const CalibrationRow* row : rows) {
    const Profile profile{nullptr, catalog.find_precision(row->precision), catalog.find_hardware(row->hardware)};
    if (profile.precision != nullptr && profile.hardware != nullptr) {
      (profile.computes_in_8_bits() ? eight : sixteen) = true;
    }
  }
  return eight && sixteen;
}

bool runs_batches(const std::vector<const CalibrationRow*>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const CalibrationRow* row) {
    return row->scenario == Scenario::static_batch || row->scenario == Scenario::max_load || row->batch > 1;
  });
}

bool runs_experts(const std::vector<const CalibrationRow*>& rows, const Catalog& catalog) {
  return std::any_of(rows.begin(), rows.end(), [&](const CalibrationRow* row) {
    const ModelSpec* model = catalog.find_model(row->model);
    return model != nullptr && model->experts > 0;
  });
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

const char* to_string(Scenario scenario) {
  switch (scenario) {
    case Scenario::decode:
      return "decode";
    case Scenario::prefill:
      return "prefill";
    case Scenario::ttft:
      return "ttft";
    case Scenario::static_batch:
      return "static_batch";
    case Scenario::max_load:
      return "max_load";
  }
  return "?";
}

const char* to_string(ErrorClass error_class) {
  switch (error_class) {
    case ErrorClass::decode_rate:
      return "decode tokens/s";
    case ErrorClass::ttft:
      return "TTFT";
    case ErrorClass::throughput:
      return "throughput";
  }
  return "?";
}

ErrorClass error_class(Scenario scenario) {
  switch (scenario) {
    case Scenario::decode:
      return ErrorClass::decode_rate;
    case Scenario::prefill:
    case Scenario::ttft:
      return ErrorClass::ttft;
    case Scenario::static_batch:
    case Scenario::max_load:
      return ErrorClass::throughput;
  }
  return ErrorClass::throughput;
}

std::vector<CalibrationRow> parse_calibration_csv(const std::string& text, const std::string& source_name) {
  std::vector<CsvRecord> records;
  try {
    records = parse_csv(text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: {}", source_name, e.what()));
  }
  if (records.empty()) {
    throw std::runtime_error(source_name + ": no header line");
  }
  const auto& header = records.front().fields;
  if (header.size() != kColumnCount || !std::equal(header.begin(), header.end(), std::begin(kColumns))) {
    throw std::runtime_error(fmt::format("{}:1: the header must be {}", source_name, fmt::join(kColumns, ",")));
  }
  std::vector<CalibrationRow> rows;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const CsvRecord& r = records[i];
    try {
      if (r.fields.size() != kColumnCount) {
        throw std::invalid_argument(fmt::format("{} fields where the header has {}", r.fields.size(), kColumnCount));
      }
      const auto& f = r.fields;
      CalibrationRow row{f[0],
                         f[1],
                         f[2],
                         f[3],
                         parse_number<int>(f[4], "devices", 1),
                         f[5],
                         parse_scenario(f[6]),
                         parse_number<int>(f[7], "batch", 1),
                         parse_number<int>(f[8], "input", 0),
                         parse_number<int>(f[9], "output", 0),
                         parse_number<int>(f[10], "requests", 1),
                         parse_number<double>(f[11], "value", 1e-12),
                         f[12],
                         f[13],
                         f[14]};
      if (row.scenario != Scenario::prefill && row.output < 1) {
        throw std::invalid_argument(fmt::format("a {} row needs at least 1 output token", f[6]));
      }
      if (row.scenario != Scenario::decode && row.input < 1) {
        throw std::invalid_argument(fmt::format("a {} row needs at least 1 input token", f[6]));
      }
      rows.push_back(std::move(row));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}:{}: {}", source_name, r.line, e.what()));
    }
  }
  return rows;
}

std::vector<CalibrationRow> load_calibration(const std::string& path) {
  return parse_calibration_csv(read_text_file(path), path);
}

std::vector<CalibrationRow> builtin_calibration() {
  return parse_calibration_csv(kBuiltinCalibrationCsv, "calibration/measurements.csv (built in)");
}

RowResult predict(const CalibrationRow& row, const Catalog& catalog, const Efficiency* efficiency) {
  const Profile profile{catalog.find_model(row.model), catalog.find_precision(row.precision),
                        catalog.find_hardware(row.hardware), row.devices};
  if (profile.model == nullptr || profile.precision == nullptr || profile.hardware == nullptr) {
    throw std::runtime_error(fmt::format("calibration row '{}': {}:{}@{} is not in the catalog", row.id, row.model,
                                         row.precision, row.hardware));
  }
  const PerfModel perf(profile, efficiency ? *efficiency : profile.hardware->efficiency);
  RowResult result{&row};
  switch (row.scenario) {
    case Scenario::decode:
      result.predicted = 1.0 / perf.decode_step_seconds(row.batch, row.input + row.output / 2.0);
      result.ratio = result.predicted / row.value;
      break;
    case Scenario::prefill: {
      const double seconds = perf.prefill_seconds(row.input);
      result.predicted = row.input / seconds;
      result.ratio = seconds / (row.input / row.value);
      break;
    }
    case Scenario::ttft:
      result.predicted = perf.prefill_seconds(row.input) * 1e3;
      result.ratio = result.predicted / row.value;
      break;
    case Scenario::static_batch:
    case Scenario::max_load: {
      Engine engine(perf, EngineLimits{row.batch, 1.0});
      if (!engine.fits(row.input, row.output)) {
        throw std::runtime_error(fmt::format("calibration row '{}': a sequence does not fit in memory", row.id));
      }
      for (int i = 0; i < row.requests; ++i) {
        engine.submit(row.input, row.output);
      }
      const double seconds = run_to_completion(engine);
      result.predicted = static_cast<double>(row.requests) * row.output / seconds;
      result.ratio = result.predicted / row.value;
      break;
    }
  }
  return result;
}

CalibrationReport evaluate(const std::vector<CalibrationRow>& rows, const Catalog& catalog) {
  CalibrationReport report;
  std::map<ErrorClass, std::vector<double>> errors;
  for (const auto& row : rows) {
    const RowResult r = predict(row, catalog);
    ClassSummary& summary = report.classes[error_class(row.scenario)];
    ++summary.rows;
    summary.worst_factor = std::max(summary.worst_factor, std::max(r.ratio, 1.0 / r.ratio));
    errors[error_class(row.scenario)].push_back(std::abs(r.ratio - 1.0));
    report.rows.push_back(r);
  }
  for (auto& [cls, values] : errors) {
    report.classes[cls].median_abs_error = median(values);
  }
  return report;
}

bool meets_bounds(const CalibrationReport& report) {
  return std::all_of(report.classes.begin(), report.classes.end(), [](const auto& entry) {
    return entry.second.median_abs_error < kMedianErrorBound && entry.second.worst_factor <= kWorstFactorBound;
  });
}

double squared_log_error(const std::vector<const CalibrationRow*>& rows, const Catalog& catalog, const Efficiency& e) {
  // A throughput row runs the engine for thousands of steps: the rows go to all cores.
  std::vector<double> terms(rows.size());
  parallel_for(rows.size(), [&](std::size_t i) {
    const double log_ratio = std::log(predict(*rows[i], catalog, &e).ratio);
    terms[i] = log_ratio * log_ratio;
  });
  return std::accumulate(terms.begin(), terms.end(), 0.0);
}

std::vector<FitParameter> fit_parameters(const std::vector<const CalibrationRow*>& rows, const Catalog& catalog) {
  // Physically plausible ranges: no engine streams HBM at its datasheet peak or runs matmuls at
  // their peak, and fixed costs are milliseconds at most. Wider ranges let a few rows pull the
  // factors to values that fit them and mislead everywhere else.
  std::vector<FitParameter> parameters = {{&Efficiency::memory, 0.5, 0.95},
                                          {&Efficiency::compute, 0.2, 0.9},
                                          {&Efficiency::step_overhead_s, 0.0, 0.005},
                                          {&Efficiency::prefill_overhead_s, 0.0, 0.01}};
  const bool dataflow = std::any_of(rows.begin(), rows.end(), [&](const CalibrationRow* r) {
    return catalog.find_hardware(r->hardware)->sram_dataflow;
  });
  if (dataflow) {
    parameters.push_back({&Efficiency::layer_latency_s, 0.0, 200e-6});
    parameters.push_back({&Efficiency::hop_latency_s, 0.0, 10e-6});
    return parameters;
  }
  // Only rows of models of different depths tell a per-layer cost from a per-step one, only rows
  // computing in both widths tell the 8-bit share from the 16-bit one, only batches bring a step's
  // memory and compute times close enough to show how far they overlap, and only a mixture of
  // experts shows how its experts' kernels fare.
  if (runs_batches(rows)) {
    parameters.push_back({&Efficiency::serial_share, 0.0, 1.0});
  }
  if (runs_experts(rows, catalog)) {
    parameters.push_back({&Efficiency::expert_efficiency, 0.3, 1.0});
  }
  if (spans_layer_counts(rows, catalog)) {
    parameters.push_back({&Efficiency::layer_overhead_s, 0.0, 200e-6});
  }
  if (spans_compute_widths(rows, catalog)) {
    parameters.push_back({&Efficiency::compute_8bit, 0.2, 0.9});
  }
  return parameters;
}

std::map<std::string, Efficiency, std::less<>> fit_families(const std::vector<CalibrationRow>& rows,
                                                            const Catalog& catalog) {
  std::map<std::string, Efficiency, std::less<>> fitted = catalog.families();
  std::map<std::string, std::vector<const CalibrationRow*>> by_family;
  for (const auto& row : rows) {
    if (const HardwareSpec* hw = catalog.find_hardware(row.hardware)) {
      by_family[hw->family].push_back(&row);
    }
  }
  for (const auto& entry : by_family) {
    const std::vector<const CalibrationRow*>& family_rows = entry.second;
    Efficiency e = fitted[entry.first];
    const std::vector<FitParameter> parameters = fit_parameters(family_rows, catalog);
    // A coarse scan of each factor over its whole range, then a compass search: step each factor
    // up and down, keep what lowers the loss, halve the steps when nothing does.
    double best = squared_log_error(family_rows, catalog, e);
    auto try_value = [&](const FitParameter& p, double value) {
      Efficiency candidate = e;
      candidate.*p.field = std::clamp(value, p.lo, p.hi);
      const double l = squared_log_error(family_rows, catalog, candidate);
      if (l < best) {
        best = l;
        e = candidate;
        return true;
      }
      return false;
    };
    constexpr int kScanPoints = 16;
    for (const FitParameter& p : parameters) {
      for (int s = 0; s <= kScanPoints; ++s) {
        try_value(p, p.lo + (p.hi - p.lo) * s / kScanPoints);
      }
    }
    std::vector<double> step(parameters.size());
    std::transform(parameters.begin(), parameters.end(), step.begin(),
                   [](const FitParameter& p) { return (p.hi - p.lo) / kScanPoints; });
    constexpr double kResolution = 1e-4;  // of each factor's range
    for (int pass = 0; pass < 400; ++pass) {
      bool improved = false;
      for (std::size_t i = 0; i < parameters.size(); ++i) {
        const FitParameter& p = parameters[i];
        improved |= try_value(p, e.*p.field + step[i]) || try_value(p, e.*p.field - step[i]);
      }
      if (!improved) {
        bool done = true;
        for (std::size_t i = 0; i < parameters.size(); ++i) {
          step[i] /= 2;
          done = done && step[i] < (parameters[i].hi - parameters[i].lo) * kResolution;
        }
        if (done) {
          break;
        }
      }
    }
    fitted[entry.first] = e;
  }
  return fitted;
}

std::string families_yaml(const std::map<std::string, Efficiency, std::less<>>& families) {
  const Efficiency defaults;
  std::string yaml = "families:\n";
  for (const auto& [name, e] : families) {
    yaml += fmt::format("  {}:\n", name);
    for (const EfficiencyField& f : efficiency_fields()) {
      if (f.always || e.*f.member != defaults.*f.member) {
        yaml += fmt::format("    {}: {:.{}f}\n", f.name, e.*f.member / f.unit, f.decimals);
      }
    }
  }
  return yaml;
}

}  // namespace infergate::sim
