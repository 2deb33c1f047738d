#include "doctor/gpu_stack.hpp"

#include <gtest/gtest.h>

namespace infergate::doctor {
namespace {

TEST(GpuStack, ParsesTheQueryCsvSkippingLinesItCannotRead) {
  const auto gpus = parse_gpu_query(
      "0, NVIDIA H100 80GB HBM3, 550.54.15, 81559, 1, 0\n"
      "1, NVIDIA GeForce RTX 4090, 550.54.15, 24564, 20000, [N/A]\n"
      "garbage line\n");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].driver, "550.54.15");
  EXPECT_DOUBLE_EQ(gpus[0].memory_total_mib, 81559);
  EXPECT_EQ(gpus[0].utilization_pct, 0);
  EXPECT_EQ(gpus[1].index, "1");
  EXPECT_FALSE(gpus[1].utilization_pct);
}

TEST(GpuStack, FindsTheCudaVersionInTheBanner) {
  EXPECT_EQ(parse_cuda_version("| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4     |"),
            "12.4");
  EXPECT_FALSE(parse_cuda_version("NVIDIA-SMI has failed"));
}

TEST(GpuStack, ReadsModuleNamesFromLsmod) {
  const auto modules = parse_lsmod(
      "Module                  Size  Used by\n"
      "nvidia_uvm           4927488  0\n"
      "nvidia              56823808  2 nvidia_uvm,nvidia_modeset\n");
  EXPECT_EQ(modules, (std::vector<std::string>{"nvidia_uvm", "nvidia"}));
}

TEST(GpuStack, ReadsDockerRuntimes) {
  EXPECT_EQ(parse_docker_runtimes(R"({"nvidia":{"path":"x"},"runc":{"path":"runc"}})"),
            (std::vector<std::string>{"nvidia", "runc"}));
  EXPECT_FALSE(parse_docker_runtimes("Cannot connect to the Docker daemon"));
}

TEST(RunCommand, CollectsOutputAndExitCode) {
  const auto r = run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, std::chrono::seconds(10));
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "out\nerr\n");
}

TEST(RunCommand, AMissingProgramIsNotFound) {
  EXPECT_FALSE(run_command({"infergate-no-such-program"}, std::chrono::seconds(10)).found);
}

TEST(RunCommand, KillsAProgramThatRunsTooLong) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_command({"/bin/sh", "-c", "exec sleep 30"}, std::chrono::milliseconds(200));
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace infergate::doctor
