#include "bench/workload.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bench/reply_messages.hpp"
#include "core/json_error.hpp"
#include "core/text_file.hpp"
#include "core/text_tokens.hpp"

namespace infergate::bench {

namespace json = boost::json;

namespace {

// Words drawn at random, so no two requests share a prefix a server could cache.
std::string synthetic_prompt(Rng& rng, int words) {
  const auto vocabulary = common_words();
  std::string text;
  text.reserve(static_cast<std::size_t>(words) * 6);
  for (int i = 0; i < words; ++i) {
    if (i > 0) {
      text.push_back(' ');
    }
    text.append(vocabulary[rng() % vocabulary.size()]);
  }
  return text;
}

int words_of(std::string_view text) {
  return static_cast<int>(count_words(text));
}

std::string_view string_field(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

// Skips the UTF-8 byte order mark that editors on Windows put at a file's start.
void skip_byte_order_mark(std::istream& in) {
  char mark[3] = {};
  if (!in.read(mark, 3) || mark[0] != '\xEF' || mark[1] != '\xBB' || mark[2] != '\xBF') {
    in.clear();
    in.seekg(0);
  }
}

// The first non-space character: '[' opens a ShareGPT JSON array, anything else is JSONL.
char first_char(std::istream& in) {
  char c = 0;
  while (in.get(c)) {
    if (!is_word_space(c)) {
      in.unget();
      return c;
    }
  }
  in.clear();
  return 0;
}

// Chat and the Responses API take a conversation; completions and embeddings take one text.
bool takes_messages(openai::Endpoint endpoint) {
  return endpoint == openai::Endpoint::chat || endpoint == openai::Endpoint::responses;
}

// What the requests ask for, in the words of a run's heading.
std::string lengths_sent(const WorkloadOptions& options) {
  const std::string batch = options.batch > 1 ? fmt::format(", {} texts a request", options.batch) : "";
  if (options.trace_file) {
    const std::string name = std::filesystem::path(*options.trace_file).filename().string();
    return options.endpoint == openai::Endpoint::embeddings
               ? fmt::format("the requests of {} to embed", name)
               : fmt::format("the requests of {}, output {} tokens where it gives no length", name,
                             options.output.to_string());
  }
  if (options.endpoint == openai::Endpoint::embeddings && options.prompts_file) {
    return fmt::format("prompts from {} to embed{}", std::filesystem::path(*options.prompts_file).filename().string(),
                       batch);
  }
  if (options.prompts_file) {
    return fmt::format("prompts from {}, output {} tokens where the file gives no length",
                       std::filesystem::path(*options.prompts_file).filename().string(), options.output.to_string());
  }
  const std::string prefix = options.prefix_groups > 0 ? fmt::format(" after a {}-token shared prefix ({} groups)",
                                                                     options.prefix_tokens, options.prefix_groups)
                                                       : "";
  if (options.endpoint == openai::Endpoint::embeddings) {
    return fmt::format("input {} tokens{} to embed{}", options.input.to_string(), prefix, batch);
  }
  return fmt::format("input {}{} / output {} tokens", options.input.to_string(), prefix, options.output.to_string());
}

}  // namespace

std::string describe_lengths(const WorkloadOptions& options) {
  auto line = [](const TokenFit& fit) {
    return fmt::format("{:.3g} a word + {:.0f} for the template", fit.tokens_per_word, fit.template_tokens);
  };
  const std::vector<TokenFit>& fits = options.input_fits;
  if (std::all_of(fits.begin(), fits.end(), [](const TokenFit& fit) { return fit.counts_words(); })) {
    return lengths_sent(options);
  }
  if (fits.size() == 1) {
    return fmt::format("{} (prompts in the server's tokens: {})", lengths_sent(options), line(fits.front()));
  }
  const std::vector<std::string> models = model_names(options);
  std::vector<std::string> each;
  for (std::size_t m = 0; m < fits.size() && m < models.size(); ++m) {
    each.push_back(fmt::format("{} {}", models[m], line(fits[m])));
  }
  return fmt::format("{} (prompts in each model's tokens: {})", lengths_sent(options), fmt::join(each, "; "));
}

Workload::Workload(WorkloadOptions options) : options_(std::move(options)) {
  if (options_.turns < 1) {
    throw std::runtime_error("--turns must be at least 1");
  }
  if (options_.turns > 1 && !takes_messages(options_.endpoint)) {
    throw std::runtime_error("multi-turn conversations need --endpoint chat or responses");
  }
  if (options_.batch < 1 || (options_.batch > 1 && options_.endpoint != openai::Endpoint::embeddings)) {
    throw std::runtime_error("--batch N (texts per request) needs N >= 1 and --endpoint embeddings");
  }
  if (options_.prompts_file) {
    load(*options_.prompts_file);
  }
  if (options_.trace_file) {
    if (options_.prompts_file || options_.prefix_groups > 0 || options_.turns > 1 || options_.batch > 1) {
      throw std::runtime_error(
          "a replayed trace gives each request's prompt: leave out --prompts, --prefix-groups, --turns and --batch");
    }
    trace_ = load_trace(*options_.trace_file);
  }
  if (!options_.input_fits.empty() && options_.input_fits.size() != model_names().size()) {
    throw std::invalid_argument(fmt::format("{} input fits for {} models: one a model, in the mix's order",
                                            options_.input_fits.size(), model_names().size()));
  }
  if (options_.prefix_groups > 0) {
    if (options_.prompts_file) {
      throw std::runtime_error("shared prefixes are built from synthetic prompts; leave out --prompts");
    }
    if (options_.prefix_tokens <= 0) {
      throw std::runtime_error("--prefix-groups needs --prefix-tokens N (the length of each shared prefix)");
    }
    // Each model's server counts its own prefixes' tokens: the same draw, as many words as make them.
    prefixes_.resize(std::max<std::size_t>(1, options_.input_fits.size()));
    for (std::size_t m = 0; m < prefixes_.size(); ++m) {
      for (int g = 0; g < options_.prefix_groups; ++g) {
        Rng rng(mix64(options_.seed) ^ mix64(0x5eed0000ULL + static_cast<std::uint64_t>(g)));
        prefixes_[m].push_back(
            synthetic_prompt(rng, fit_of(static_cast<std::uint32_t>(m)).words_for(options_.prefix_tokens)));
      }
    }
  }
}

void Workload::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error(fmt::format("cannot open prompts file '{}'", path));
  }
  skip_byte_order_mark(in);
  if (first_char(in) == '[') {
    load_sharegpt(path, in);
  } else {
    load_jsonl(path, in);
  }
  if (prompts_.empty()) {
    throw std::runtime_error(fmt::format("prompts file '{}' holds no prompts", path));
  }
}

void Workload::load_jsonl(const std::string& path, std::istream& in) {
  for_each_filled_line(in, [&](const std::string& line, int number) {
    const std::string where = fmt::format("{}:{}", path, number);
    auto fail = [&](std::string_view why) { throw std::runtime_error(fmt::format("{}: {}", where, why)); };
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) {
      fail(
          "each line must be a JSON object such as {\"prompt\": \"...\"}, {\"messages\": [...]} or a ShareGPT "
          "{\"conversations\": [...]}");
    }
    const auto& object = v.get_object();
    if (object.contains("conversations")) {
      add_sharegpt(v, where);
      return;
    }
    FilePrompt prompt;
    std::optional<int> output_tokens;
    for (const char* key : {"output_tokens", "max_tokens"}) {
      if (const auto* o = object.if_contains(key); o && o->is_int64() && o->get_int64() > 0) {
        output_tokens = static_cast<int>(o->get_int64());
      }
    }
    if (const auto* p = object.if_contains("prompt"); p && p->is_string()) {
      prompt.turns.push_back(Turn{std::string(p->get_string()), output_tokens});
    } else if (const auto* m = object.if_contains("messages"); m && m->is_array()) {
      if (!takes_messages(options_.endpoint)) {
        fail("'messages' needs --endpoint chat or responses");
      }
      prompt.messages = *m;
      for (const auto& message : m->get_array()) {
        if (message.is_object()) {
          prompt.messages_words += words_of(string_field(message.get_object(), "content"));
        }
      }
      prompt.turns.push_back(Turn{{}, output_tokens});
    } else {
      fail("a line needs a string 'prompt', an array 'messages' or an array 'conversations'");
    }
    prompts_.push_back(std::move(prompt));
  });
}

void Workload::load_sharegpt(const std::string& path, std::istream& in) {
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string syntax_error;
  const json::value v = parse_json(text, syntax_error);
  if (!syntax_error.empty() || !v.is_array()) {
    throw std::runtime_error(
        fmt::format("{}: a file opening with '[' must be a ShareGPT JSON array of "
                    "{{\"conversations\": [{{\"from\": \"human\", \"value\": ...}}, ...]}} ({})",
                    path, syntax_error.empty() ? "not an array" : "not valid JSON: " + syntax_error));
  }
  std::size_t index = 0;
  for (const auto& entry : v.get_array()) {
    add_sharegpt(entry, fmt::format("{} entry {}", path, index++));
  }
}

// A ShareGPT conversation: its human turns in order, each with the length of the recorded answer
// that followed it. Entries without a human turn answered by the model are skipped, as vLLM's
// benchmark skips them.
void Workload::add_sharegpt(const json::value& entry, const std::string& where) {
  const auto* conversations = entry.is_object() ? entry.get_object().if_contains("conversations") : nullptr;
  if (conversations == nullptr || !conversations->is_array()) {
    throw std::runtime_error(fmt::format("{}: a ShareGPT entry needs an array 'conversations'", where));
  }
  FilePrompt prompt;
  const auto& messages = conversations->get_array();
  for (std::size_t i = 0; i + 1 < messages.size(); ++i) {
    if (!messages[i].is_object() || !messages[i + 1].is_object()) {
      continue;
    }
    const auto& asked = messages[i].get_object();
    const auto& answered = messages[i + 1].get_object();
    const std::string_view from = string_field(asked, "from");
    const std::string_view reply_from = string_field(answered, "from");
    const std::string_view question = string_field(asked, "value");
    const int answer_words = words_of(string_field(answered, "value"));
    if ((from == "human" || from == "user") && (reply_from == "gpt" || reply_from == "assistant") &&
        words_of(question) > 0 && answer_words > 0) {
      prompt.turns.push_back(Turn{std::string(question), answer_words});
      ++i;
    }
  }
  if (!prompt.turns.empty()) {
    prompts_.push_back(std::move(prompt));
  }
}

int Workload::turns(std::uint64_t conversation) const {
  if (prompts_.empty()) {
    return options_.turns;
  }
  const FilePrompt& file = prompts_[conversation % prompts_.size()];
  return std::max(1, std::min(options_.turns, static_cast<int>(file.turns.size())));
}

std::string Workload::traced_text(std::uint64_t index, int& input_tokens, int& output_tokens) const {
  const TraceRequest& t = trace_[index % trace_.size()];
  Rng rng(mix64(options_.seed) ^ mix64(index + 1));
  output_tokens = t.output_tokens.value_or(options_.output.sample(rng));
  if (t.text) {
    input_tokens += words_of(*t.text);
    return *t.text;
  }
  std::string text;
  int words = 0;
  for (const std::uint64_t id : t.hash_ids) {
    if (words >= t.input_tokens) {
      break;
    }
    // A block's text depends on its id alone, so every request naming it sends the same words.
    Rng block(mix64(options_.seed) ^ mix64(0xb10c0000ULL + id));
    const int take = std::min(kTraceBlockTokens, t.input_tokens - words);
    text += (text.empty() ? "" : " ") + synthetic_prompt(block, take);
    words += take;
  }
  if (words < t.input_tokens) {
    text += (text.empty() ? "" : " ") + synthetic_prompt(rng, t.input_tokens - words);
  }
  input_tokens += t.input_tokens;
  return text;
}

const TokenFit& Workload::fit_of(std::uint32_t model) const {
  static const TokenFit words;
  return options_.input_fits.empty() ? words : options_.input_fits.at(model);
}

const std::string* Workload::prefix_of(std::uint64_t index, std::uint32_t model) const {
  if (prefixes_.empty()) {
    return nullptr;
  }
  const std::vector<std::string>& own = prefixes_.size() == 1 ? prefixes_.front() : prefixes_.at(model);
  return &own[index % own.size()];
}

std::string Workload::single_text(std::uint64_t index, std::uint32_t model, int& input_tokens,
                                  int& output_tokens) const {
  Rng rng(mix64(options_.seed) ^ mix64(index + 1));
  std::string text;
  if (!prompts_.empty()) {
    const Turn& t = prompts_[index % prompts_.size()].turns.front();
    output_tokens = t.output_tokens.value_or(options_.output.sample(rng));
    text = t.text;
  } else {
    const int tokens = options_.input.sample(rng);
    output_tokens = options_.output.sample(rng);
    const TokenFit& fit = fit_of(model);
    text = synthetic_prompt(rng, fit.words_for(tokens - fit.template_tokens));
  }
  input_tokens += words_of(text);
  if (const std::string* prefix = prefix_of(index, model)) {
    input_tokens += words_of(*prefix);
    return *prefix + " " + text;
  }
  return text;
}

std::vector<std::string> model_names(const WorkloadOptions& options) {
  if (options.mix.size() < 2) {
    return {options.model};
  }
  std::vector<std::string> names;
  for (const ModelShare& share : options.mix) {
    names.push_back(share.name);
  }
  return names;
}

PreparedRequest Workload::make_turn(std::uint64_t conversation, int turn,
                                    const std::vector<openai::Reply>& replies) const {
  PreparedRequest out;
  out.model = static_cast<std::uint32_t>(model_of_conversation(options_.mix, options_.seed, conversation));
  const TokenFit& fit = fit_of(out.model);
  const FilePrompt* file = prompts_.empty() ? nullptr : &prompts_[conversation % prompts_.size()];
  // The user's words of turn k: from the file, or drawn from the seed (turn 0 as a single request).
  auto user_turn = [&](int k, int* output_tokens) {
    Rng rng(k == 0 ? mix64(options_.seed) ^ mix64(conversation + 1)
                   : mix64(options_.seed) ^ mix64(conversation + 1) ^ mix64(0x7a11ULL + static_cast<std::uint64_t>(k)));
    if (file != nullptr) {
      const Turn& t = file->turns[static_cast<std::size_t>(k)];
      *output_tokens = t.output_tokens.value_or(options_.output.sample(rng));
      return t.text;
    }
    const int tokens = options_.input.sample(rng);
    *output_tokens = options_.output.sample(rng);
    // The template is counted once a request: the first turn's words make room for it.
    const double template_tokens = k == 0 ? fit.template_tokens : 0;
    return synthetic_prompt(rng, fit.words_for(tokens - template_tokens));
  };

  json::object body;
  body["model"] = options_.mix.size() > 1 ? options_.mix[out.model].name : options_.model;
  const bool responses = options_.endpoint == openai::Endpoint::responses;
  const bool embeddings = options_.endpoint == openai::Endpoint::embeddings;
  // The Responses API takes a conversation's messages, system ones included, as its input items.
  const std::string_view messages_field = responses ? "input" : "messages";
  const std::string* prefix = prefix_of(conversation, out.model);
  if (!trace_.empty()) {
    std::string text = traced_text(conversation, out.input_tokens, out.output_tokens);
    if (takes_messages(options_.endpoint)) {
      body[messages_field] = json::array{json::object{{"role", "user"}, {"content", std::move(text)}}};
    } else {
      body[embeddings ? "input" : "prompt"] = text;
    }
  } else if (file != nullptr && file->messages.is_array()) {
    body[messages_field] = file->messages;
    out.input_tokens = file->messages_words;
    Rng rng(mix64(options_.seed) ^ mix64(conversation + 1));
    out.output_tokens = file->turns.front().output_tokens.value_or(options_.output.sample(rng));
  } else if (takes_messages(options_.endpoint)) {
    json::array messages;
    if (prefix != nullptr) {
      messages.push_back(json::object{{"role", "system"}, {"content", *prefix}});
      out.input_tokens += words_of(*prefix);
    }
    for (int k = 0; k <= turn; ++k) {
      int output_tokens = 0;
      std::string text = user_turn(k, &output_tokens);
      const openai::Reply* before = k > 0 ? &replies.at(static_cast<std::size_t>(k - 1)) : nullptr;
      if (before != nullptr && !before->tool_calls.empty()) {
        out.input_tokens += append_tool_results(messages, *before, std::move(text), responses, k - 1);
      } else {
        out.input_tokens += words_of(text);
        messages.push_back(json::object{{"role", "user"}, {"content", std::move(text)}});
      }
      if (k < turn) {
        out.input_tokens += append_reply(messages, replies.at(static_cast<std::size_t>(k)), responses, k);
      } else {
        out.output_tokens = output_tokens;
      }
    }
    body[messages_field] = std::move(messages);
  } else if (embeddings && options_.batch > 1) {
    json::array inputs;
    const auto batch = static_cast<std::uint64_t>(options_.batch);
    for (std::uint64_t j = 0; j < batch; ++j) {
      int ignored = 0;
      inputs.emplace_back(single_text(conversation * batch + j, out.model, out.input_tokens, ignored));
    }
    out.inputs = options_.batch;
    body["input"] = std::move(inputs);
  } else {
    body[embeddings ? "input" : "prompt"] = single_text(conversation, out.model, out.input_tokens, out.output_tokens);
  }
  if (trace_.empty() && !fit.counts_words()) {
    out.input_tokens = fit.tokens_for(out.input_tokens);
  }
  finish(body, out, options_.stream);
  return out;
}

PreparedRequest Workload::make_probe(const std::string& text) const {
  PreparedRequest out;
  out.input_tokens = words_of(text);
  out.output_tokens = 1;
  json::object body;
  body["model"] = options_.model;
  if (takes_messages(options_.endpoint)) {
    body[options_.endpoint == openai::Endpoint::responses ? "input" : "messages"] =
        json::array{json::object{{"role", "user"}, {"content", text}}};
  } else {
    body[options_.endpoint == openai::Endpoint::embeddings ? "input" : "prompt"] = text;
  }
  finish(body, out, false);
  return out;
}

void Workload::finish(json::object& body, PreparedRequest& out, bool stream) const {
  const bool responses = options_.endpoint == openai::Endpoint::responses;
  if (options_.endpoint == openai::Endpoint::embeddings) {
    // Nothing is generated, so no lengths and no stream; vectors come as the openai SDKs ask for them.
    out.output_tokens = 0;
    body["encoding_format"] = "base64";
  } else {
    body[responses ? "max_output_tokens" : "max_tokens"] = out.output_tokens;
    if (options_.ignore_eos) {
      body["ignore_eos"] = true;
      body["min_tokens"] = out.output_tokens;
    }
    body["stream"] = stream;
    if (stream && !responses) {  // the Responses API's stream ends with its usage unasked
      body["stream_options"] = json::object{{"include_usage", true}};
    }
  }
  for (const auto& member : options_.extra_body) {
    body[member.key()] = member.value();
  }
  out.body = json::serialize(body);
}

}  // namespace infergate::bench
