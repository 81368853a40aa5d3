#include "parity/analyzer/weights/name_features.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace parity::analyzer {
namespace {

// Words that mean the same thing in different frameworks' parameter names
// (PyTorch, MindSpore, TensorFlow/Keras, Paddle). A vocabulary, not a map of
// any one model: it lets the pairing see that moving_variance and running_var
// are the same statistic.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kSynonyms{{
    {"gamma", "weight"},
    {"beta", "bias"},
    {"kernel", "weight"},
    {"scale", "weight"},
    {"offset", "bias"},
    {"moving", "running"},
    {"variance", "var"},
    {"w", "weight"},
}};

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) out.push_back(std::move(word));
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (!std::isalpha(c)) {
      flush();
      continue;
    }
    // camelCase: a capital after a lower-case letter starts a word.
    if (std::isupper(c) && i > 0 && std::islower(static_cast<unsigned char>(text[i - 1]))) flush();
    word += static_cast<char>(std::tolower(c));
  }
  flush();
  return out;
}

std::string fold_synonyms(const std::vector<std::string>& leaf_words) {
  std::string out;
  for (const std::string& word : leaf_words) {
    std::string_view folded = word;
    for (const auto& [alias, canonical] : kSynonyms)
      if (word == alias) folded = canonical;
    out += folded;
  }
  return out;
}

}  // namespace

NameFeatures name_features(std::string_view name) {
  NameFeatures features;
  const auto dot = name.rfind('.');
  features.module = dot == std::string_view::npos ? "" : std::string(name.substr(0, dot));
  features.leaf = std::string(dot == std::string_view::npos ? name : name.substr(dot + 1));
  for (std::size_t i = 0; i < features.module.size();) {
    if (!std::isdigit(static_cast<unsigned char>(features.module[i]))) {
      ++i;
      continue;
    }
    std::int64_t value = 0;
    for (; i < features.module.size() && std::isdigit(static_cast<unsigned char>(features.module[i])); ++i)
      value = std::min<std::int64_t>(value * 10 + (features.module[i] - '0'), 1'000'000'000);
    features.numbers.push_back(value);
  }
  for (const std::string& word : words(features.module)) features.module_letters += word;
  features.leaf_letters = fold_synonyms(words(features.leaf));
  return features;
}

double bigram_similarity(std::string_view a, std::string_view b) {
  if (a == b) return 1.0;
  if (a.size() < 2 || b.size() < 2) return 0.0;
  std::vector<std::uint16_t> left, right;
  for (std::size_t i = 0; i + 1 < a.size(); ++i)
    left.push_back(static_cast<std::uint16_t>((static_cast<unsigned char>(a[i]) << 8) |
                                              static_cast<unsigned char>(a[i + 1])));
  for (std::size_t i = 0; i + 1 < b.size(); ++i)
    right.push_back(static_cast<std::uint16_t>((static_cast<unsigned char>(b[i]) << 8) |
                                               static_cast<unsigned char>(b[i + 1])));
  std::sort(left.begin(), left.end());
  std::sort(right.begin(), right.end());
  std::size_t common = 0;
  for (std::size_t i = 0, j = 0; i < left.size() && j < right.size();) {
    if (left[i] == right[j]) {
      ++common, ++i, ++j;
    } else if (left[i] < right[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return 2.0 * static_cast<double>(common) / static_cast<double>(left.size() + right.size());
}

}  // namespace parity::analyzer
