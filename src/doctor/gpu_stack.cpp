#include "doctor/gpu_stack.hpp"

#include <fmt/format.h>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <charconv>

namespace infergate::doctor {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) {
      return parts;
    }
    text.remove_prefix(at + 1);
  }
}

std::optional<double> number(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string first_line(std::string_view text) {
  text = trim(text);
  return std::string(trim(text.substr(0, text.find('\n'))));
}

// Why nvidia-smi failed, from what it printed, with the fix.
Finding diagnose_nvidia_smi(const CommandResult& r) {
  Finding f{Verdict::fail, "nvidia-smi", fmt::format("exits {}: {}", r.exit_code, first_line(r.output)), ""};
  if (contains(r.output, "Driver/library version mismatch")) {
    f.detail = "the NVIDIA kernel module and the user-space driver libraries are different versions";
    f.fix =
        "the driver was upgraded without a reboot (or a distribution update replaced the libraries): reboot, or "
        "unload the nvidia modules (sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia) and load them again";
  } else if (contains(r.output, "couldn't communicate with the NVIDIA driver")) {
    f.detail = "the NVIDIA kernel driver is not loaded";
    f.fix =
        "most often the module was not built for the running kernel (a kernel update without matching headers): "
        "install the headers for `uname -r`, rebuild with `sudo dkms autoinstall` (or reinstall the driver), "
        "then reboot; if nouveau is loaded, blacklist it first";
  } else if (contains(r.output, "No devices were found")) {
    f.detail = "the driver is loaded but sees no GPU";
    f.fix =
        "check that the card is seated and powered (lspci | grep -i nvidia), that a VM has it passed through, and "
        "`dmesg | grep -i nvrm` for the driver's own complaint";
  } else {
    f.fix = "run nvidia-smi by hand and read `dmesg | grep -i nvrm`";
  }
  return f;
}

void check_modules(const CommandRunner& run, bool nvidia_expected, std::vector<Finding>& out) {
  const CommandResult r = run({"lsmod"});
  if (!r.found || r.exit_code != 0) {
    out.push_back({Verdict::info, "kernel modules", "lsmod is not available; module checks skipped", ""});
    return;
  }
  const auto modules = parse_lsmod(r.output);
  auto loaded = [&](std::string_view name) { return std::find(modules.begin(), modules.end(), name) != modules.end(); };
  if (loaded("nouveau")) {
    out.push_back({Verdict::fail, "kernel modules", "nouveau (the open-source driver) is loaded",
                   "it holds the GPU so the NVIDIA driver cannot: blacklist it (echo -e 'blacklist nouveau\\noptions "
                   "nouveau modeset=0' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf), run sudo "
                   "update-initramfs -u and reboot"});
  }
  if (loaded("nvidia")) {
    out.push_back({Verdict::ok, "kernel modules", "nvidia is loaded", ""});
  } else if (nvidia_expected) {
    out.push_back({Verdict::fail, "kernel modules", "the nvidia module is not loaded",
                   "sudo modprobe nvidia; if that fails, the module was not built for this kernel: install the "
                   "kernel headers and run sudo dkms autoinstall"});
  }
}

void check_docker(const CommandRunner& run, std::vector<Finding>& out) {
  const CommandResult r = run({"docker", "info", "--format", "{{json .Runtimes}}"});
  if (!r.found) {
    out.push_back({Verdict::info, "docker", "docker is not installed; container checks skipped", ""});
    return;
  }
  const auto runtimes = r.exit_code == 0 ? parse_docker_runtimes(r.output) : std::nullopt;
  if (!runtimes) {
    out.push_back({Verdict::warn, "docker", "docker info failed: " + first_line(r.output),
                   "is the daemon running (systemctl status docker) and may this user use it (the docker group)?"});
    return;
  }
  if (std::find(runtimes->begin(), runtimes->end(), "nvidia") != runtimes->end()) {
    out.push_back({Verdict::ok, "docker", "the nvidia runtime is configured", ""});
    return;
  }
  out.push_back(
      {Verdict::fail, "docker",
       fmt::format("no nvidia runtime (runtimes: {}): containers will not see the GPU", fmt::join(*runtimes, ", ")),
       "install the NVIDIA Container Toolkit (nvidia-container-toolkit), then sudo nvidia-ctk runtime "
       "configure --runtime=docker and sudo systemctl restart docker"});
}

}  // namespace

const std::vector<std::string>& gpu_query_command() {
  static const std::vector<std::string> argv{
      "nvidia-smi", "--query-gpu=index,name,driver_version,memory.total,memory.used,utilization.gpu",
      "--format=csv,noheader,nounits"};
  return argv;
}

std::vector<GpuInfo> parse_gpu_query(std::string_view csv) {
  std::vector<GpuInfo> gpus;
  for (std::string_view line : split(csv, '\n')) {
    const auto fields = split(line, ',');
    if (fields.size() != 6) {
      continue;
    }
    GpuInfo g{std::string(trim(fields[0])), std::string(trim(fields[1])), std::string(trim(fields[2]))};
    auto total = number(trim(fields[3]));
    auto used = number(trim(fields[4]));
    if (!total || !used) {
      continue;
    }
    g.memory_total_mib = *total;
    g.memory_used_mib = *used;
    g.utilization_pct = number(trim(fields[5]));
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::optional<std::string> parse_cuda_version(std::string_view banner) {
  const std::string_view key = "CUDA Version:";
  const std::size_t at = banner.find(key);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view rest = trim(banner.substr(at + key.size()));
  rest = rest.substr(0, rest.find_first_of(" |\n"));
  if (rest.empty()) {
    return std::nullopt;
  }
  return std::string(rest);
}

std::vector<std::string> parse_lsmod(std::string_view text) {
  std::vector<std::string> modules;
  bool header = true;
  for (std::string_view line : split(text, '\n')) {
    if (header) {
      header = false;
      if (line.starts_with("Module")) {
        continue;
      }
    }
    line = trim(line);
    if (!line.empty()) {
      modules.emplace_back(line.substr(0, line.find_first_of(" \t")));
    }
  }
  return modules;
}

std::optional<std::vector<std::string>> parse_docker_runtimes(std::string_view json) {
  boost::system::error_code ec;
  const auto value = boost::json::parse(trim(json), ec);
  if (ec || !value.is_object()) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const auto& entry : value.get_object()) {
    names.emplace_back(entry.key());
  }
  return names;
}

std::vector<Finding> check_gpu_stack(const CommandRunner& run) {
  std::vector<Finding> out;
  const CommandResult query = run(gpu_query_command());
  if (!query.found) {
    out.push_back({Verdict::info, "nvidia-smi",
                   "not found on PATH: this machine has no NVIDIA driver installed, so no local GPU (the simulator "
                   "and remote endpoints still work)",
                   ""});
    check_modules(run, false, out);
    return out;
  }
  if (query.exit_code != 0) {
    out.push_back(diagnose_nvidia_smi(query));
    check_modules(run, true, out);
    check_docker(run, out);
    return out;
  }
  const auto gpus = parse_gpu_query(query.output);
  const CommandResult banner = run({"nvidia-smi"});
  const auto cuda = banner.exit_code == 0 ? parse_cuda_version(banner.output) : std::nullopt;
  if (gpus.empty()) {
    out.push_back({Verdict::warn, "nvidia-smi", "ran but listed no GPU: " + first_line(query.output),
                   "check `nvidia-smi -L` and `dmesg | grep -i nvrm`"});
  } else {
    out.push_back({Verdict::ok, "driver",
                   fmt::format("NVIDIA driver {}, CUDA {} (the newest CUDA this driver supports)", gpus.front().driver,
                               cuda.value_or("unknown")),
                   ""});
  }
  for (const GpuInfo& g : gpus) {
    std::string utilization = g.utilization_pct ? fmt::format("{:.0f}% busy", *g.utilization_pct) : "utilisation n/a";
    out.push_back({Verdict::ok, "GPU " + g.index,
                   fmt::format("{}, {:.1f} of {:.1f} GiB used, {}", g.name, g.memory_used_mib / 1024,
                               g.memory_total_mib / 1024, utilization),
                   ""});
    if (g.memory_total_mib > 0 && g.memory_used_mib / g.memory_total_mib > 0.9) {
      out.push_back({Verdict::warn, "GPU " + g.index, "over 90% of its memory is already in use",
                     "another process holds it (nvidia-smi lists it): a new server there will not fit its KV cache"});
    }
  }
  check_modules(run, true, out);
  check_docker(run, out);
  return out;
}

}  // namespace infergate::doctor
