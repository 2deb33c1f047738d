#pragma once
// What `infergate doctor` reports: one finding per check, with the likely cause and the fix when
// something is wrong.
#include <span>
#include <string>
#include <vector>

namespace infergate::doctor {

enum class Verdict { ok, info, warn, fail };
const char* to_string(Verdict verdict);

struct Finding {
  Verdict verdict = Verdict::ok;
  std::string check;   // what was looked at: "nvidia-smi", "TCP connect", ...
  std::string detail;  // what was found
  std::string fix;     // for warn and fail: what to do about it
};

// One block per finding, fixes indented under their finding.
std::string format_findings(std::span<const Finding> findings);
std::string findings_json(std::span<const Finding> findings);

[[nodiscard]] bool any_failed(std::span<const Finding> findings);

}  // namespace infergate::doctor
