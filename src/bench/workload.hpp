#pragma once
// What the benchmark sends: request bodies built from synthetic prompts of a requested token
// length, or from a file of prompts (JSONL, or ShareGPT conversations). Deterministic in (seed,
// conversation, turn). A single-turn request is turn 0 of its own conversation.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "bench/distribution.hpp"
#include "bench/model_mix.hpp"
#include "bench/token_fit.hpp"
#include "bench/trace_file.hpp"
#include "openai/completion_request.hpp"
#include "openai/stream_chunk.hpp"

namespace infergate::bench {

struct WorkloadOptions {
  openai::Endpoint endpoint = openai::Endpoint::chat;
  std::string model;
  // --model A=3,B=1: conversations spread over these by weight (model_mix.hpp), in place of
  // `model`; a run of one model has one entry (its name, which `model` repeats) or none.
  std::vector<ModelShare> mix;
  LengthDistribution input = LengthDistribution::fixed(512);  // each user turn
  LengthDistribution output = LengthDistribution::fixed(128);
  std::optional<std::string> prompts_file;
  // --replay: a request trace (bench/trace_file.hpp) whose requests, in order, are those sent.
  std::optional<std::string> trace_file;
  bool stream = true;
  bool ignore_eos = true;  // also sends min_tokens = max_tokens so lengths are exactly as asked
  // Shared prefixes: request i starts with prefix i mod prefix_groups (a system message in chat)
  // of prefix_tokens, then its own prompt of `input` tokens, as a prefix cache would see them.
  int prefix_groups = 0;
  int prefix_tokens = 0;
  // Multi-turn: each conversation has up to this many user turns (a ShareGPT conversation has as
  // many as it recorded); each turn carries the history, the server's own replies included.
  int turns = 1;
  // Embeddings: texts per request, sent as an `input` array (as embedding clients batch them).
  // Request i carries the texts requests i*batch .. i*batch+batch-1 would carry one by one.
  int batch = 1;
  std::uint64_t seed = 1;
  // --extra-body: members added to every request (parse_extra_body refuses those set here).
  boost::json::object extra_body;
  // --fit-input-tokens: how the server counts words for each model requests ask for
  // (Workload::model_names(), in its order; input_fit.hpp), or empty: a word is a token. Synthetic
  // prompts and shared prefixes are drawn with the words that make the tokens asked for in their
  // model's count, the template included, and each request's input_tokens is the server's count
  // as the fit has it. A trace's lengths are its own.
  std::vector<TokenFit> input_fits;
};

// "input 512 / output 128 tokens", as a run's heading says what it sends; with a prompts file,
// where the lengths come from instead, and with shared prefixes, their length.
std::string describe_lengths(const WorkloadOptions& options);

// The models requests ask for: the mix's, in its order, or the one model.
std::vector<std::string> model_names(const WorkloadOptions& options);

struct PreparedRequest {
  std::string body;
  int input_tokens = 0;     // requested: words of every message sent (the simulator's tokens)
  int output_tokens = 0;    // max_tokens asked for
  int inputs = 1;           // texts to embed (--batch): the vectors the answer must hold
  std::uint32_t model = 0;  // which of Workload::model_names() it asks for
};

class Workload {
 public:
  // Loads the prompts file, if any; throws std::runtime_error naming the file and line at fault,
  // or the options that do not go together.
  explicit Workload(WorkloadOptions options);

  // Turns in `conversation` (1 unless multi-turn).
  [[nodiscard]] int turns(std::uint64_t conversation) const;
  // `replies` holds the server's answers to the conversation's earlier turns, one per turn. A turn
  // after an answer that called tools brings the calls' results in place of the user's words
  // (reply_messages.hpp).
  [[nodiscard]] PreparedRequest make_turn(std::uint64_t conversation, int turn,
                                          const std::vector<openai::Reply>& replies) const;
  [[nodiscard]] PreparedRequest make(std::uint64_t index) const { return make_turn(index, 0, {}); }
  // A request of `text` alone, asking for one token, whole, as the workload words its requests
  // (endpoint, model, extra body): what --fit-input-tokens probes the server with.
  [[nodiscard]] PreparedRequest make_probe(const std::string& text) const;
  [[nodiscard]] bool multi_turn() const { return options_.turns > 1; }
  [[nodiscard]] std::vector<std::string> model_names() const { return bench::model_names(options_); }
  // A replayed trace's requests: how many, and when request `index` is due (seconds from the first).
  [[nodiscard]] const std::vector<TraceRequest>& trace() const { return trace_; }
  [[nodiscard]] const WorkloadOptions& options() const { return options_; }

 private:
  struct Turn {
    std::string text;
    std::optional<int> output_tokens;  // the recorded answer's length, or the line's output_tokens
  };
  struct FilePrompt {
    std::vector<Turn> turns;      // user turns in order
    boost::json::value messages;  // for a JSONL chat conversation: the messages array as written, else null
    int messages_words = 0;
  };
  // Lengths, stream and the extra body, then `body` serialized into `out`.
  void finish(boost::json::object& body, PreparedRequest& out, bool stream) const;
  void load(const std::string& path);
  void load_jsonl(const std::string& path, std::istream& in);
  void load_sharegpt(const std::string& path, std::istream& in);
  void add_sharegpt(const boost::json::value& entry, const std::string& where);
  // The one text request `index` sends to completions or embeddings: the file's prompt or one
  // drawn from the seed, after its shared prefix; adds its words to `input_tokens`.
  [[nodiscard]] std::string single_text(std::uint64_t index, std::uint32_t model, int& input_tokens,
                                        int& output_tokens) const;
  // How `model`'s server counts words (the simulator's count when nothing was fitted).
  [[nodiscard]] const TokenFit& fit_of(std::uint32_t model) const;
  // The shared prefix that request `index` to `model` opens with, or nullptr without them.
  [[nodiscard]] const std::string* prefix_of(std::uint64_t index, std::uint32_t model) const;
  // The prompt of the trace's request `index`: its own text, or its blocks' shared text and then
  // words of its own up to its input length.
  [[nodiscard]] std::string traced_text(std::uint64_t index, int& input_tokens, int& output_tokens) const;

  WorkloadOptions options_;
  std::vector<FilePrompt> prompts_;
  std::vector<std::vector<std::string>> prefixes_;  // by model (one set when nothing was fitted), then group
  std::vector<TraceRequest> trace_;
};

}  // namespace infergate::bench
