// The name features of the automatic (structural) pairing.
#include "parity/analyzer/weights/name_features.hpp"

#include <catch2/catch.hpp>

using namespace parity::analyzer;

TEST_CASE("name features: numbers, letters and folded synonyms", "[unit][weights]") {
  const NameFeatures f = name_features("layer3.12.down_sample_layer.1.moving_variance");
  CHECK(f.module == "layer3.12.down_sample_layer.1");
  CHECK(f.numbers == std::vector<std::int64_t>{3, 12, 1});
  CHECK(f.module_letters == "layerdownsamplelayer");
  CHECK(f.leaf_letters == "runningvar");
  CHECK(name_features("bn.running_var").leaf_letters == "runningvar");
  CHECK(name_features("encoder.attnBlock.kernel").module_letters == "encoderattnblock");
  CHECK(name_features("encoder.attnBlock.kernel").leaf_letters == "weight");
  CHECK(bigram_similarity("abc", "abc") == 1.0);
  CHECK(bigram_similarity("abcd", "wxyz") == 0.0);
  CHECK(bigram_similarity("downsample", "downsamplelayer") > 0.7);
}
