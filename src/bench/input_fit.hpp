#pragma once
// --fit-input-tokens: prompts sized in the server's own tokens, without its tokenizer. The
// benchmark's synthetic prompts are words drawn evenly from one vocabulary; a server counts them
// by its tokenizer, and its chat template adds tokens of its own. Two probes, the vocabulary once
// and then over and over, answered with their usage, give the line tokens = template + per_word x
// words, where per_word is the vocabulary's mean (what a drawn word costs on average); each prompt
// is then drawn with the words that line says make the tokens asked for.
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/runner.hpp"
#include "bench/workload.hpp"

namespace infergate::bench {

// The probes' lengths, in passes over the vocabulary (128 words): the long one stays under 2,048
// tokens for a tokenizer that splits each word in two, within any model's context.
inline constexpr int kShortProbePasses = 1;
inline constexpr int kLongProbePasses = 8;

struct InputFitProbe {
  int words = 0;
  std::int64_t prompt_tokens = 0;  // as the server's usage counted them
};

// From two probes (their words as Workload counts them, template included in neither). Throws
// BenchError when the counts cannot be a tokenizer's: no usage, or fewer tokens for more words.
TokenFit fit_from_probes(const InputFitProbe& short_probe, const InputFitProbe& long_probe);

// For each model `options` asks for (its mix's, in order, or its one model), sends the two probes
// as `options` would send that model a request (endpoint, extra body; one token out, whole
// answers) and fits their usage: a mix's models may each have their own tokenizer and template.
// Throws BenchError naming what went wrong.
std::vector<TokenFit> probe_input_fits(const Target& target, const WorkloadOptions& options);

// {"tokens_per_word": 1.31, "template_tokens": 9}, for a result's config; for a mix, {"by_model":
// {"A": {...}, "B": {...}}}.
boost::json::object input_fit_json(const WorkloadOptions& options);

}  // namespace infergate::bench
