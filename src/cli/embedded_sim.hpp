#pragma once
// The simulator running in this process on its own thread and loopback port: the default target
// of `bench` and `demo` when no --base-url is given.
#include <memory>
#include <string>
#include <vector>

#include "sim/sim_server.hpp"

namespace infergate::cli {

class EmbeddedSim {
 public:
  explicit EmbeddedSim(sim::SimOptions options);
  ~EmbeddedSim();
  EmbeddedSim(const EmbeddedSim&) = delete;
  EmbeddedSim& operator=(const EmbeddedSim&) = delete;

  [[nodiscard]] const std::string& base_url() const { return base_url_; }
  [[nodiscard]] std::vector<std::string> model_names() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string base_url_;
};

// Options shared by `sim`, `bench --sim` and `demo`: one served model for each profile.
sim::SimOptions sim_options_for(const std::vector<std::string>& profiles, double speedup, int max_num_seqs);

}  // namespace infergate::cli
