#include "core/text_tokens.hpp"

#include <array>

namespace infergate {
namespace {

constexpr std::array<std::string_view, 128> kWords = {
    "the",     "of",      "and",   "to",    "in",     "is",    "that",  "for",     "it",    "as",    "was",
    "with",    "be",      "by",    "on",    "not",    "he",    "this",  "are",     "or",    "his",   "from",
    "at",      "which",   "but",   "have",  "an",     "had",   "they",  "you",     "were",  "their", "one",
    "all",     "we",      "can",   "her",   "has",    "there", "been",  "if",      "more",  "when",  "will",
    "would",   "who",     "so",    "no",    "time",   "new",   "some",  "what",    "only",  "into",  "them",
    "two",     "may",     "then",  "do",    "first",  "any",   "my",    "now",     "such",  "like",  "our",
    "over",    "man",     "me",    "even",  "most",   "made",  "after", "also",    "did",   "many",  "before",
    "must",    "through", "back",  "years", "where",  "much",  "your",  "way",     "well",  "down",  "should",
    "because", "each",    "just",  "those", "people", "how",   "too",   "little",  "state", "good",  "very",
    "make",    "world",   "still", "own",   "see",    "men",   "work",  "long",    "get",   "here",  "between",
    "both",    "life",    "being", "under", "never",  "day",   "same",  "another", "know",  "while", "last",
    "might",   "us",      "great", "old",   "year",   "off",   "come",
};

}  // namespace

std::span<const std::string_view> common_words() {
  return kWords;
}

std::size_t count_words(std::string_view text) {
  std::size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    if (is_word_space(c)) {
      in_word = false;
    } else if (!in_word) {
      in_word = true;
      ++words;
    }
  }
  return words;
}

}  // namespace infergate
