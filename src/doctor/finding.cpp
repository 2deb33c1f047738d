#include "doctor/finding.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>

namespace infergate::doctor {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::ok:
      return "ok";
    case Verdict::info:
      return "info";
    case Verdict::warn:
      return "warn";
    case Verdict::fail:
      return "FAIL";
  }
  return "?";
}

std::string format_findings(std::span<const Finding> findings) {
  std::string out;
  for (const Finding& f : findings) {
    fmt::format_to(std::back_inserter(out), "[{:>4}] {}: {}\n", to_string(f.verdict), f.check, f.detail);
    if (!f.fix.empty()) {
      fmt::format_to(std::back_inserter(out), "       fix: {}\n", f.fix);
    }
  }
  return out;
}

std::string findings_json(std::span<const Finding> findings) {
  boost::json::array array;
  for (const Finding& f : findings) {
    boost::json::object o{{"verdict", f.verdict == Verdict::fail ? "fail" : to_string(f.verdict)},
                          {"check", f.check},
                          {"detail", f.detail}};
    if (!f.fix.empty()) {
      o["fix"] = f.fix;
    }
    array.push_back(std::move(o));
  }
  return boost::json::serialize(boost::json::object{{"findings", std::move(array)}}) + "\n";
}

bool any_failed(std::span<const Finding> findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.verdict == Verdict::fail; });
}

}  // namespace infergate::doctor
