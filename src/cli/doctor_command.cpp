#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <cstdlib>

#include "cli/checked_by.hpp"
#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "doctor/endpoint.hpp"
#include "doctor/gpu_stack.hpp"

namespace infergate::cli {

namespace {

struct DoctorArgs {
  std::string base_url;
  std::string model;
  std::string api_key;
  std::vector<std::string> headers;  // "Name: value"
  bool insecure = false;
  bool gpu = false;
  bool json = false;
  double timeout_s = 15;
};

void run_doctor(const DoctorArgs& args) {
  std::vector<doctor::Finding> findings;
  if (args.base_url.empty() || args.gpu) {
    findings = doctor::check_gpu_stack(
        [](const std::vector<std::string>& argv) { return doctor::run_command(argv, std::chrono::seconds(20)); });
  }
  if (!args.base_url.empty()) {
    doctor::EndpointOptions options;
    options.url = http::parse_url(args.base_url);
    options.model = args.model;
    options.api_key = args.api_key;
    if (options.api_key.empty()) {
      if (const char* env = std::getenv("OPENAI_API_KEY")) {
        options.api_key = env;
      }
    }
    for (const std::string& header : args.headers) {
      options.headers.push_back(doctor::parse_header_option(header));
    }
    options.tls.verify_peer = !args.insecure;
    options.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args.timeout_s * 1000));
    boost::asio::io_context io{1};
    auto result = boost::asio::co_spawn(io, doctor::check_endpoint(std::move(options)), boost::asio::use_future);
    io.run();
    auto endpoint = result.get();
    findings.insert(findings.end(), endpoint.begin(), endpoint.end());
  }
  fmt::print("{}", args.json ? doctor::findings_json(findings) : doctor::format_findings(findings));
  if (doctor::any_failed(findings)) {
    throw CLI::RuntimeError(1);
  }
}

}  // namespace

void add_doctor_command(CLI::App& app) {
  auto args = std::make_shared<DoctorArgs>();
  auto* cmd = app.add_subcommand(
      "doctor", "Check the local GPU stack, or an endpoint (--base-url), and say what to fix; exits 1 on a failure");
  cmd->add_option("--base-url", args->base_url, "OpenAI-compatible endpoint to check (e.g. http://127.0.0.1:8000/v1)");
  cmd->add_option("--model", args->model, "Model to try (default: the first the server lists)");
  cmd->add_option("--api-key", args->api_key, "Bearer key (default: $OPENAI_API_KEY)");
  cmd->add_option("--header", args->headers,
                  "\"Name: value\", repeated: a header sent with every check's request (an endpoint's own key or "
                  "route header); User-Agent replaces doctor's")
      ->check(checked_by(doctor::parse_header_option));
  cmd->add_flag("--insecure", args->insecure, "Do not verify the server's TLS certificate");
  cmd->add_flag("--gpu", args->gpu, "With --base-url, check the local GPU stack as well");
  cmd->add_flag("--json", args->json, "Print JSON for tools");
  cmd->add_option("--timeout", args->timeout_s, "Seconds to wait for each answer")
      ->check(positive())
      ->capture_default_str();
  cmd->callback([args] { run_doctor(*args); });
}

}  // namespace infergate::cli
