#pragma once
// The live progress line on a terminal: done/total, req/s, tok/s, errors, ETA. Silent when
// standard error is not a terminal, so logs and CI output stay clean.
#include <cstdint>
#include <cstdio>

#include "bench/runner.hpp"

namespace infergate::bench {

class ProgressLine {
 public:
  // total = 0 for a run bounded by duration_s instead.
  ProgressLine(std::uint64_t total, double duration_s, std::FILE* out = stderr);
  [[nodiscard]] bool enabled() const { return enabled_; }
  void update(const Progress& p);
  void finish();  // clears the line

 private:
  std::uint64_t total_;
  double duration_s_;
  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace infergate::bench
