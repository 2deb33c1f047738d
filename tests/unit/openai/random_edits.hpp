#pragma once
// Random edits of a text for tests that compare two readers of it: 1 to 3 changes, each a byte
// replaced by one of `alphabet`, a byte removed, a byte doubled, or the text cut short.
#include <cstddef>
#include <random>
#include <string>
#include <string_view>

namespace infergate::openai {

inline std::string random_edit(std::string text, std::string_view alphabet, std::mt19937& random) {
  for (int c = 1 + static_cast<int>(random() % 3); c > 0 && !text.empty(); --c) {
    const std::size_t at = random() % text.size();
    switch (random() % 4) {
      case 0:
        text[at] = alphabet[random() % alphabet.size()];
        break;
      case 1:
        text.erase(at, 1);
        break;
      case 2:
        text.insert(at, 1, text[at]);
        break;
      default:
        text.resize(at);
        break;
    }
  }
  return text;
}

}  // namespace infergate::openai
