#pragma once
// Runs a local program found on PATH and collects what it prints, for the GPU-stack checks. Tests
// put recorded outputs on PATH in place of nvidia-smi, lsmod and docker.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace infergate::doctor {

struct CommandResult {
  bool found = false;  // false: no such program on PATH (or it could not be started)
  int exit_code = -1;  // -1 when killed (by the timeout or a signal)
  std::string output;  // stdout and stderr together, at most 1 MiB
};

using CommandRunner = std::function<CommandResult(const std::vector<std::string>& argv)>;

// Runs argv[0] (looked up on PATH) with stdin closed; kills it after `timeout`.
CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

}  // namespace infergate::doctor
