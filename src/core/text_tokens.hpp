#pragma once
// A vocabulary of short, common English words, each a single token (with its leading space) in the
// BPE tokenizers of Llama, Qwen, Gemma and GPT models. The benchmark builds prompts of N such words
// to ask for N input tokens; the simulator counts whitespace-separated words as its tokenizer.
#include <cstddef>
#include <span>
#include <string_view>

namespace infergate {

std::span<const std::string_view> common_words();

// Number of whitespace-separated words: the simulator's token count for a text.
std::size_t count_words(std::string_view text);

}  // namespace infergate
