#pragma once
// How a server counts the benchmark's synthetic words: tokens = template + per_word x words
// (measured by bench/input_fit.hpp). The default, 0 and 1, is the simulator's count: a word is a
// token and nothing is added.
#include <algorithm>
#include <cmath>

namespace infergate::bench {

struct TokenFit {
  double template_tokens = 0;  // what the chat template and the request's framing add, once a request
  double tokens_per_word = 1;

  [[nodiscard]] bool counts_words() const { return template_tokens == 0 && tokens_per_word == 1; }
  // The words of a text the server counts as `tokens`, at least one.
  [[nodiscard]] int words_for(double tokens) const {
    return std::max(1, static_cast<int>(std::lround(tokens / tokens_per_word)));
  }
  // The tokens the server counts for a request of `words` words, template included.
  [[nodiscard]] int tokens_for(int words) const {
    return static_cast<int>(std::lround(template_tokens + tokens_per_word * words));
  }
};

}  // namespace infergate::bench
