#include "bench/workload.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <fstream>
#include <stdexcept>

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

}  // namespace

Workload::Workload(WorkloadOptions options) : options_(std::move(options)) {
  if (options_.prompts_file) {
    load(*options_.prompts_file);
  }
  if (options_.prefix_groups > 0) {
    if (options_.prompts_file) {
      throw std::runtime_error("shared prefixes are built from synthetic prompts; leave out --prompts");
    }
    if (options_.prefix_tokens <= 0) {
      throw std::runtime_error("--prefix-groups needs --prefix-tokens N (the length of each shared prefix)");
    }
    prefixes_.reserve(static_cast<std::size_t>(options_.prefix_groups));
    for (int g = 0; g < options_.prefix_groups; ++g) {
      Rng rng(mix64(options_.seed) ^ mix64(0x5eed0000ULL + static_cast<std::uint64_t>(g)));
      prefixes_.push_back(synthetic_prompt(rng, options_.prefix_tokens));
    }
  }
}

void Workload::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error(fmt::format("cannot open prompts file '{}'", path));
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    auto fail = [&](std::string_view why) { throw std::runtime_error(fmt::format("{}:{}: {}", path, number, why)); };
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) {
      fail("each line must be a JSON object such as {\"prompt\": \"...\"} or {\"messages\": [...]}");
    }
    const auto& object = v.get_object();
    FilePrompt prompt;
    if (const auto* p = object.if_contains("prompt"); p && p->is_string()) {
      prompt.prompt = p->get_string();
      prompt.words = static_cast<int>(count_words(prompt.prompt));
    } else if (const auto* m = object.if_contains("messages"); m && m->is_array()) {
      if (options_.endpoint != openai::Endpoint::chat) {
        fail("'messages' needs --endpoint chat");
      }
      prompt.messages_json = json::serialize(*m);
      for (const auto& message : m->get_array()) {
        if (const auto* c = message.is_object() ? message.get_object().if_contains("content") : nullptr;
            c && c->is_string()) {
          prompt.words += static_cast<int>(count_words(c->get_string()));
        }
      }
    } else {
      fail("a line needs a string 'prompt' or an array 'messages'");
    }
    for (const char* key : {"output_tokens", "max_tokens"}) {
      if (const auto* o = object.if_contains(key); o && o->is_int64() && o->get_int64() > 0) {
        prompt.output_tokens = static_cast<int>(o->get_int64());
      }
    }
    prompts_.push_back(std::move(prompt));
  }
  if (prompts_.empty()) {
    throw std::runtime_error(fmt::format("prompts file '{}' holds no prompts", path));
  }
}

PreparedRequest Workload::make(std::uint64_t index) const {
  Rng rng(mix64(options_.seed) ^ mix64(index + 1));
  PreparedRequest out;
  std::string prompt;
  const FilePrompt* file = prompts_.empty() ? nullptr : &prompts_[index % prompts_.size()];
  if (file != nullptr) {
    out.input_tokens = file->words;
    out.output_tokens = file->output_tokens.value_or(options_.output.sample(rng));
  } else {
    out.input_tokens = options_.input.sample(rng);
    out.output_tokens = options_.output.sample(rng);
    prompt = synthetic_prompt(rng, out.input_tokens);
  }

  const std::string* prefix = prefixes_.empty() ? nullptr : &prefixes_[index % prefixes_.size()];
  if (prefix != nullptr) {
    out.input_tokens += options_.prefix_tokens;
  }

  json::object body;
  body["model"] = options_.model;
  if (options_.endpoint == openai::Endpoint::chat) {
    if (file != nullptr && !file->messages_json.empty()) {
      body["messages"] = json::parse(file->messages_json);
    } else {
      json::array messages;
      if (prefix != nullptr) {
        messages.push_back(json::object{{"role", "system"}, {"content", *prefix}});
      }
      messages.push_back(json::object{{"role", "user"}, {"content", file ? file->prompt : prompt}});
      body["messages"] = std::move(messages);
    }
  } else if (prefix != nullptr) {
    body["prompt"] = *prefix + " " + prompt;
  } else {
    body["prompt"] = file ? file->prompt : prompt;
  }
  body["max_tokens"] = out.output_tokens;
  if (options_.ignore_eos) {
    body["ignore_eos"] = true;
    body["min_tokens"] = out.output_tokens;
  }
  body["stream"] = options_.stream;
  if (options_.stream) {
    body["stream_options"] = json::object{{"include_usage", true}};
  }
  out.body = json::serialize(body);
  return out;
}

}  // namespace infergate::bench
