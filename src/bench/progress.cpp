#include "bench/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace infergate::bench {

ProgressLine::ProgressLine(std::uint64_t total, double duration_s, std::FILE* out)
    : total_(total), duration_s_(duration_s), out_(out), enabled_(::isatty(::fileno(out)) != 0) {}

void ProgressLine::update(const Progress& p) {
  if (!enabled_ || p.elapsed_s <= 0) {
    return;
  }
  const double rps = static_cast<double>(p.done) / p.elapsed_s;
  double eta = 0;
  if (total_ > 0 && rps > 0) {
    eta = static_cast<double>(total_ - std::min(total_, p.done)) / rps;
  } else if (total_ == 0) {
    eta = std::max(0.0, duration_s_ - p.elapsed_s);
  }
  const std::string total = total_ > 0 ? fmt::format("{}", total_) : "?";
  fmt::print(out_, "\r\033[K{}/{} done  {:.1f} req/s  {:.0f} tok/s  {} errors  ETA {:.0f}s", p.done, total, rps,
             static_cast<double>(p.output_tokens) / p.elapsed_s, p.failed, eta);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (drawn_) {
    fmt::print(out_, "\r\033[K");
    std::fflush(out_);
  }
}

}  // namespace infergate::bench
