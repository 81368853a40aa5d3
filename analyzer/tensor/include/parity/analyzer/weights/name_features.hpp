// What the automatic pairing reads from a parameter name: its module path and
// leaf, the integers in it (block and layer indices), and its letters with the
// common synonyms of frameworks' parameter names folded together.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parity::analyzer {

struct NameFeatures {
  std::string module;                 // "layer1.0.down_sample_layer.0" ("" at top level)
  std::string leaf;                   // "weight"
  std::vector<std::int64_t> numbers;  // every integer in the module path, in order: {1, 0, 0}
  std::string module_letters;         // lower-case letters of the module path: "layerdownsamplelayer"
  std::string leaf_letters;           // the leaf's words, synonyms folded: "runningvar" for moving_variance
};

NameFeatures name_features(std::string_view name);

// Dice coefficient of the two strings' character bigrams, in [0, 1]; 1 for
// two equal strings (two empty strings included).
double bigram_similarity(std::string_view a, std::string_view b);

}  // namespace parity::analyzer
