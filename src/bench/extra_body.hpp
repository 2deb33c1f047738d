#pragma once
// `--extra-body JSON`: members added to every request the benchmark sends, for the settings a
// workload needs beyond its lengths (temperature, top_p, seed, a server's own options such as
// chat_template_kwargs or reasoning_effort).
#include <boost/json/object.hpp>

#include <string_view>

namespace infergate::bench {

// The object `text` holds. Throws std::invalid_argument when it is not a JSON object, or when it
// names a member the benchmark writes itself (model, the prompt, the lengths, stream...): the
// message names the option that sets that member. Such a member would be sent twice, and which
// copy a server reads differs from server to server, so the run would not measure what it says.
[[nodiscard]] boost::json::object parse_extra_body(std::string_view text);

}  // namespace infergate::bench
