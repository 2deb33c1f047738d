#pragma once
// What the benchmark sends: request bodies built from synthetic prompts of a requested token
// length, or from a JSONL file of prompts. Deterministic in (seed, request index).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/distribution.hpp"
#include "openai/completion_request.hpp"

namespace infergate::bench {

struct WorkloadOptions {
  openai::Endpoint endpoint = openai::Endpoint::chat;
  std::string model;
  LengthDistribution input = LengthDistribution::fixed(512);
  LengthDistribution output = LengthDistribution::fixed(128);
  std::optional<std::string> prompts_file;
  bool stream = true;
  bool ignore_eos = true;  // also sends min_tokens = max_tokens so lengths are exactly as asked
  // Shared prefixes: request i starts with prefix i mod prefix_groups (a system message in chat)
  // of prefix_tokens, then its own prompt of `input` tokens, as a prefix cache would see them.
  int prefix_groups = 0;
  int prefix_tokens = 0;
  std::uint64_t seed = 1;
};

struct PreparedRequest {
  std::string body;
  int input_tokens = 0;   // requested (synthetic) or estimated from words (file)
  int output_tokens = 0;  // max_tokens asked for
};

class Workload {
 public:
  // Loads the prompts file, if any; throws std::runtime_error naming the file and line at fault,
  // or the options that do not go together.
  explicit Workload(WorkloadOptions options);

  [[nodiscard]] PreparedRequest make(std::uint64_t index) const;
  [[nodiscard]] const WorkloadOptions& options() const { return options_; }

 private:
  struct FilePrompt {
    std::string prompt;         // for a plain prompt
    std::string messages_json;  // for a chat conversation, the messages array as written
    int words = 0;
    std::optional<int> output_tokens;
  };
  void load(const std::string& path);

  WorkloadOptions options_;
  std::vector<FilePrompt> prompts_;
  std::vector<std::string> prefixes_;
};

}  // namespace infergate::bench
