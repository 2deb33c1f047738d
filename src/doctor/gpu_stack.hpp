#pragma once
// The local NVIDIA stack: GPUs and driver as nvidia-smi reports them, the kernel modules (nvidia
// loaded, nouveau not), and Docker's NVIDIA runtime. Each problem comes with its likely cause and
// the fix. No GPU at all is a statement, not a failure.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/command.hpp"
#include "doctor/finding.hpp"

namespace infergate::doctor {

struct GpuInfo {
  std::string index;
  std::string name;
  std::string driver;
  double memory_total_mib = 0;
  double memory_used_mib = 0;
  std::optional<double> utilization_pct;  // "[N/A]" on some boards
};

// The arguments that make nvidia-smi print one CSV line per GPU in the shape parse_gpu_query reads.
const std::vector<std::string>& gpu_query_command();

// Lines of `nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used,utilization.gpu
// --format=csv,noheader,nounits`; lines that do not have six fields are skipped.
std::vector<GpuInfo> parse_gpu_query(std::string_view csv);

// "CUDA Version: 12.4" from nvidia-smi's banner.
std::optional<std::string> parse_cuda_version(std::string_view banner);

// The module names of `lsmod` output (header skipped).
std::vector<std::string> parse_lsmod(std::string_view text);

// The runtime names in `docker info --format '{{json .Runtimes}}'`; nullopt when it is not that.
std::optional<std::vector<std::string>> parse_docker_runtimes(std::string_view json);

std::vector<Finding> check_gpu_stack(const CommandRunner& run);

}  // namespace infergate::doctor
