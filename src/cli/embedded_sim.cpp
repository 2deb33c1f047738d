#include "cli/embedded_sim.hpp"

#include <fmt/format.h>
#include <boost/asio/io_context.hpp>

#include <thread>

namespace infergate::cli {

struct EmbeddedSim::Impl {
  explicit Impl(sim::SimOptions options) : server(io, std::move(options)) {}
  boost::asio::io_context io{1};
  sim::SimServer server;
  std::thread thread;
};

EmbeddedSim::EmbeddedSim(sim::SimOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  const auto port = impl_->server.listen("127.0.0.1", 0);
  base_url_ = fmt::format("http://127.0.0.1:{}", port);
  impl_->thread = std::thread([io = &impl_->io] { io->run(); });
}

EmbeddedSim::~EmbeddedSim() {
  impl_->io.stop();
  impl_->thread.join();
}

std::vector<std::string> EmbeddedSim::model_names() const {
  return impl_->server.model_names();
}

sim::SimOptions sim_options_for(const std::vector<std::string>& profiles, double speedup, int max_num_seqs) {
  sim::SimOptions options;
  for (const std::string& profile : profiles) {
    options.profiles.push_back(sim::parse_profile(profile));
  }
  options.engine.speedup = speedup;
  options.engine.max_num_seqs = max_num_seqs;
  return options;
}

}  // namespace infergate::cli
