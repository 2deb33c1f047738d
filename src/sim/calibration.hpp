#pragma once
// The simulator against published measurements (calibration/measurements.csv): predict each row
// with the performance model and the batching engine, report the error, and fit the efficiency
// factors of each hardware family to the rows (docs/simulator.md, "Calibration").
#include <map>
#include <string>
#include <vector>

#include "sim/catalog.hpp"

namespace infergate::sim {

enum class Scenario { decode, prefill, ttft, static_batch, max_load };

// What a row's error is summarised under: the three headline figures users compare.
enum class ErrorClass { decode_rate, ttft, throughput };

struct CalibrationRow {
  std::string id;
  std::string hardware;
  std::string model;
  std::string precision;
  int devices = 1;
  std::string engine;
  Scenario scenario = Scenario::decode;
  int batch = 1;
  int input = 0;
  int output = 0;
  int requests = 1;
  double value = 0;
  std::string unit;
  std::string source;
  std::string note;
};

// Throws std::runtime_error naming the line and column of anything it cannot use.
std::vector<CalibrationRow> parse_calibration_csv(const std::string& text, const std::string& source_name);
std::vector<CalibrationRow> load_calibration(const std::string& path);
// calibration/measurements.csv as compiled into the binary.
std::vector<CalibrationRow> builtin_calibration();

ErrorClass error_class(Scenario scenario);
const char* to_string(Scenario scenario);
const char* to_string(ErrorClass error_class);

struct RowResult {
  const CalibrationRow* row = nullptr;
  double predicted = 0;  // in the row's unit
  // predicted / measured of the summarised figure (prefill rows compare time to first token, so
  // a prediction 10% too fast counts as 10% too early whichever way the row is written).
  double ratio = 1;
};

struct ClassSummary {
  int rows = 0;
  double median_abs_error = 0;  // median of |ratio - 1|
  double worst_factor = 1;      // max(ratio, 1 / ratio)
};

struct CalibrationReport {
  std::vector<RowResult> rows;
  std::map<ErrorClass, ClassSummary> classes;
};

// The acceptance bound of docs/simulator.md: in every error class the median |error| stays under
// kMedianErrorBound, and no row is off by more than kWorstFactorBound either way.
constexpr double kMedianErrorBound = 0.20;
constexpr double kWorstFactorBound = 2.0;
[[nodiscard]] bool meets_bounds(const CalibrationReport& report);

// The row's prediction; an Efficiency given overrides the hardware family's.
RowResult predict(const CalibrationRow& row, const Catalog& catalog, const Efficiency* efficiency = nullptr);
CalibrationReport evaluate(const std::vector<CalibrationRow>& rows, const Catalog& catalog);

// Σ log(predicted / measured)² over `rows` with factors `e`: what the fit minimises. The rows are
// predicted on all cores and summed in their order, so the sum does not depend on the core count.
double squared_log_error(const std::vector<const CalibrationRow*>& rows, const Catalog& catalog, const Efficiency& e);

// A factor the fit moves, within the physically plausible range [lo, hi].
struct FitParameter {
  double Efficiency::*field;
  double lo;
  double hi;
};
// The factors one family's rows can tell apart, so the fit moves them and leaves the rest.
std::vector<FitParameter> fit_parameters(const std::vector<const CalibrationRow*>& rows, const Catalog& catalog);

// Least squares on log(predicted / measured) over each family's rows, by coordinate search within
// physical bounds. Families without rows keep their factors.
std::map<std::string, Efficiency, std::less<>> fit_families(const std::vector<CalibrationRow>& rows,
                                                            const Catalog& catalog);

// `families` as catalog.yaml's `families:` section, each factor rounded as efficiency_fields()
// says; a factor not every family has is left out where it has its default (a family a file
// names starts from the defaults).
std::string families_yaml(const std::map<std::string, Efficiency, std::less<>>& families);

}  // namespace infergate::sim
