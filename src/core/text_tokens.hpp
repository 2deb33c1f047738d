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

inline bool is_word_space(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// Calls fn(word) for each whitespace-separated word of `text`, in order.
template <class Fn>
void for_each_word(std::string_view text, Fn&& fn) {
  std::size_t start = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_word_space(text[i])) {
      if (in_word) {
        fn(text.substr(start, i - start));
        in_word = false;
      }
    } else if (!in_word) {
      in_word = true;
      start = i;
    }
  }
  if (in_word) {
    fn(text.substr(start));
  }
}

}  // namespace infergate
