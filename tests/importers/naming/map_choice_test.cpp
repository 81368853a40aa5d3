// Lining up two files' names: the wrapper prefixes, the automatic choice of
// a built-in map, and an explicit map.
#include "parity/importers/naming/map_choice.hpp"

#include <catch2/catch.hpp>

#include "parity/core/error.hpp"

using namespace parity;
using namespace parity::importers;

namespace {

std::vector<TensorEntry> entries(
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& list) {
  std::vector<TensorEntry> out;
  for (const auto& [name, shape] : list) out.push_back({name, DType::kFloat32, shape});
  return out;
}

const auto kTorch = entries({{"conv1.weight", {8, 3, 3, 3}},
                             {"bn1.weight", {8}},
                             {"bn1.bias", {8}},
                             {"bn1.running_mean", {8}},
                             {"bn1.running_var", {8}},
                             {"bn1.num_batches_tracked", {}},
                             {"fc.weight", {4, 8}},
                             {"fc.bias", {4}}});

}  // namespace

TEST_CASE("wrapper prefixes shared by half the names are candidates", "[unit][naming]") {
  // Only candidates: bn1 holds 5 of the 8 names, but stripping it pairs
  // nothing, so match_names never takes it.
  CHECK(wrapper_prefixes(kTorch) == std::vector<std::string>{"", "bn1."});
  CHECK(match_names(kTorch, kTorch, "auto").prefix_a.empty());
  const auto wrapped = entries({{"state_dict.module.a.weight", {1}},
                                {"state_dict.module.b.weight", {1}},
                                {"state_dict.module.c.weight", {1}},
                                {"epoch", {}}});
  CHECK(wrapper_prefixes(wrapped) ==
        std::vector<std::string>{"", "state_dict.", "state_dict.module."});
}

TEST_CASE("auto picks the built-in map and prefix that pair the most shapes", "[unit][naming]") {
  const auto mindspore = entries({{"net.conv1.weight", {8, 3, 3, 3}},
                                  {"net.bn1.moving_mean", {8}},
                                  {"net.bn1.moving_variance", {8}},
                                  {"net.bn1.gamma", {8}},
                                  {"net.bn1.beta", {8}},
                                  {"net.end_point.weight", {4, 8}},
                                  {"net.end_point.bias", {4}}});
  const MapMatch match = match_names(mindspore, kTorch, "auto");
  CHECK(match.map->description() == "modelzoo-to-torch");
  CHECK(match.prefix_a == "net.");
  CHECK(match.description() == "modelzoo-to-torch, A without 'net.'");
  CHECK(match.equal_shape_pairs == 7);
  REQUIRE(match.partner_of_a[3]);
  CHECK(kTorch[*match.partner_of_a[3]].name == "bn1.weight");
  CHECK(match.mapped_a[5] == "fc.weight");
  // MindSpore keeps no batch counter: by design, not a loss.
  CHECK(match.lonely_b[5].has_value());
  CHECK_FALSE(match.lonely_b[0].has_value());

  // The same names on both sides: identity, tried first, wins the tie.
  CHECK(match_names(kTorch, kTorch, "auto").map->description() == "identity");
}

TEST_CASE("an explicit map is applied as given, and an unknown one is refused", "[unit][naming]") {
  const MapMatch match = match_names(kTorch, kTorch, "torch-to-mindspore");
  CHECK(match.map->description() == "torch-to-mindspore");
  CHECK(match.equal_shape_pairs == 3);   // conv1.weight, fc.weight, fc.bias keep their names
  CHECK(match.lonely_a[5].has_value());  // num_batches_tracked has no MindSpore counterpart
  CHECK_THROWS_AS(match_names(kTorch, kTorch, "no-such-map"), Error);
}
