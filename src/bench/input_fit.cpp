#include "bench/input_fit.hpp"

#include <fmt/format.h>

#include "core/text_tokens.hpp"
#include "openai/embedding_reply.hpp"
#include "openai/stream_chunk.hpp"

namespace infergate::bench {

namespace {

// The prompt tokens the server's answer to a probe reports.
std::int64_t reported_prompt_tokens(const Target& target, openai::Endpoint endpoint, const std::string& body,
                                    int words) {
  std::optional<openai::Usage> usage;
  std::optional<std::string> bad;
  if (endpoint == openai::Endpoint::embeddings) {
    openai::EmbeddingReply reply;
    bad = openai::parse_embedding_reply(body, reply);
    usage = reply.usage;
  } else {
    openai::ChunkView view;
    bad = endpoint == openai::Endpoint::responses ? openai::parse_response_object(body, view)
                                                  : openai::parse_completion_response(body, view);
    usage = view.usage;
  }
  if (bad) {
    throw BenchError(fmt::format("--fit-input-tokens: {} answered a probe of {} words with a body that is {}",
                                 target.base.to_string(), words, *bad));
  }
  if (!usage || usage->prompt_tokens <= 0) {
    throw BenchError(fmt::format(
        "--fit-input-tokens: {}'s answer to a probe of {} words reports no prompt tokens (usage); the server's "
        "count is what the fit needs, so leave the option out for this server",
        target.base.to_string(), words));
  }
  return usage->prompt_tokens;
}

}  // namespace

TokenFit fit_from_probes(const InputFitProbe& short_probe, const InputFitProbe& long_probe) {
  const double extra_words = long_probe.words - short_probe.words;
  const double extra_tokens = static_cast<double>(long_probe.prompt_tokens - short_probe.prompt_tokens);
  if (!(extra_words > 0) || !(extra_tokens > 0)) {
    throw BenchError(fmt::format(
        "--fit-input-tokens: a prompt of {} words counted {} tokens and one of {} words {}: a server's count "
        "grows with the prompt, so this one does not count what it is sent",
        short_probe.words, short_probe.prompt_tokens, long_probe.words, long_probe.prompt_tokens));
  }
  TokenFit fit;
  fit.tokens_per_word = extra_tokens / extra_words;
  fit.template_tokens = std::max(0.0, static_cast<double>(short_probe.prompt_tokens) -
                                          fit.tokens_per_word * static_cast<double>(short_probe.words));
  return fit;
}

namespace {

// The fit of `model`'s count, probed as `options` words its requests.
TokenFit probe_input_fit(const Target& target, const WorkloadOptions& options, const std::string& model) {
  WorkloadOptions plain = options;
  plain.prompts_file.reset();
  plain.trace_file.reset();
  plain.prefix_groups = 0;
  plain.input_fits.clear();
  plain.mix.clear();
  plain.model = model;
  const Workload workload(plain);
  InputFitProbe probes[2];
  const int passes[2] = {kShortProbePasses, kLongProbePasses};
  for (int i = 0; i < 2; ++i) {
    std::string text;
    for (int pass = 0; pass < passes[i]; ++pass) {
      for (const std::string_view word : common_words()) {
        text += text.empty() ? "" : " ";
        text += word;
      }
    }
    const PreparedRequest request = workload.make_probe(text);
    probes[i].words = request.input_tokens;
    const std::string answer = post_once(target, options.endpoint, request.body);
    probes[i].prompt_tokens = reported_prompt_tokens(target, options.endpoint, answer, request.input_tokens);
  }
  return fit_from_probes(probes[0], probes[1]);
}

boost::json::object fit_json(const TokenFit& fit) {
  return boost::json::object{{"tokens_per_word", fit.tokens_per_word}, {"template_tokens", fit.template_tokens}};
}

}  // namespace

std::vector<TokenFit> probe_input_fits(const Target& target, const WorkloadOptions& options) {
  std::vector<TokenFit> fits;
  for (const std::string& model : model_names(options)) {
    fits.push_back(probe_input_fit(target, options, model));
  }
  return fits;
}

boost::json::object input_fit_json(const WorkloadOptions& options) {
  const std::vector<TokenFit>& fits = options.input_fits;
  if (fits.size() == 1) {
    return fit_json(fits.front());
  }
  const std::vector<std::string> models = model_names(options);
  boost::json::object by_model;
  for (std::size_t m = 0; m < fits.size() && m < models.size(); ++m) {
    by_model[models[m]] = fit_json(fits[m]);
  }
  return boost::json::object{{"by_model", std::move(by_model)}};
}

}  // namespace infergate::bench
