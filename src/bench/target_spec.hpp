#pragma once
// `--target NAME=URL[,model=M][,api_key_env=VAR]`: one of several endpoints measured side by side.
#include <string>
#include <string_view>

namespace infergate::bench {

struct TargetSpec {
  std::string name;
  std::string url;
  std::string model;        // empty: the first the endpoint lists
  std::string api_key_env;  // empty: --api-key or $OPENAI_API_KEY
};

// Throws std::invalid_argument naming what is wrong and the accepted form.
TargetSpec parse_target_spec(std::string_view text);

}  // namespace infergate::bench
