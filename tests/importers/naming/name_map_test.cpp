// Built-in name maps and rule files.
#include "parity/importers/naming/name_map.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "parity/core/error.hpp"
#include "temp_dir.hpp"

using namespace parity::importers;
using Kind = MappedName::Kind;

namespace {

std::vector<std::string> mapped(const NameMap& map, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const MappedName& name : map.apply(names))
    out.push_back(name.kind == Kind::kMapped ? name.name : "<none>");
  return out;
}

const std::vector<std::string> kTorch{"conv1.weight",
                                      "bn1.weight",
                                      "bn1.bias",
                                      "bn1.running_mean",
                                      "bn1.running_var",
                                      "bn1.num_batches_tracked",
                                      "layer1.0.downsample.0.weight",
                                      "layer1.0.downsample.1.weight",
                                      "layer1.0.downsample.1.running_mean",
                                      "fc.weight",
                                      "fc.bias"};

}  // namespace

TEST_CASE("built-in maps rename batch norms and model_zoo modules both ways", "[unit][naming]") {
  const auto to_modelzoo = make_builtin_map("torch-to-modelzoo");
  const std::vector<std::string> expected{"conv1.weight",
                                          "bn1.gamma",
                                          "bn1.beta",
                                          "bn1.moving_mean",
                                          "bn1.moving_variance",
                                          "<none>",
                                          "layer1.0.down_sample_layer.0.weight",
                                          "layer1.0.down_sample_layer.1.gamma",
                                          "layer1.0.down_sample_layer.1.moving_mean",
                                          "end_point.weight",
                                          "end_point.bias"};
  CHECK(mapped(*to_modelzoo, kTorch) == expected);
  // fc's weight and bias stay weight and bias: only batch norms have gamma and beta.
  CHECK(mapped(*make_builtin_map("torch-to-mindspore"),
               {"fc.weight", "bn.weight", "bn.running_var"}) ==
        std::vector<std::string>{"fc.weight", "bn.gamma", "bn.moving_variance"});

  std::vector<std::string> back_input;
  for (const std::string& name : expected)
    if (name != "<none>") back_input.push_back(name);
  std::vector<std::string> torch_without_counter = kTorch;
  torch_without_counter.erase(torch_without_counter.begin() + 5);
  CHECK(mapped(*make_builtin_map(reverse_builtin_map_name("torch-to-modelzoo")), back_input) ==
        torch_without_counter);
  CHECK(reverse_builtin_map_name("mindspore-to-torch") == "torch-to-mindspore");

  const auto lonely = make_builtin_map("mindspore-to-torch")->lonely_in_b(kTorch);
  CHECK(lonely[5].has_value());
  CHECK_FALSE(lonely[1].has_value());
}

TEST_CASE("rule files rewrite names in order and list names with no counterpart",
          "[unit][naming]") {
  TempDir dir;
  std::ofstream(dir / "rules.yaml") << "rules:\n"
                                       "  - {from: '^backbone\\.', to: ''}\n"
                                       "  - {from: '\\.kernel$', to: '.weight'}\n"
                                       "  - {from: 'block(\\d+)', to: 'layer$1'}\n"
                                       "no_counterpart: ['step$']\n";
  const auto map = make_name_map((dir / "rules.yaml").string());
  CHECK(mapped(*map, {"backbone.block2.conv.kernel", "head.bias", "backbone.step"}) ==
        std::vector<std::string>{"layer2.conv.weight", "head.bias", "<none>"});
  CHECK(map->lonely_in_b({"x.step", "x.weight"})[0].has_value());

  std::ofstream(dir / "rules.json") << R"({"rules": [{"from": "a", "to": "b"}]})";
  CHECK(mapped(*make_name_map((dir / "rules.json").string()), {"cat"}) ==
        std::vector<std::string>{"cbt"});
}

TEST_CASE("bad rule files and unknown maps are named", "[unit][naming]") {
  TempDir dir;
  const auto refused = [](const std::string& spec, const std::string& message) {
    try {
      make_name_map(spec);
      FAIL("accepted " << spec);
    } catch (const parity::Error& error) {
      CHECK_THAT(error.what(), Catch::Contains(message));
    }
  };
  refused("torch-to-tensorflow", "built-in maps: auto, identity, mindspore-to-torch");
  std::ofstream(dir / "unknown.yaml") << "rulez: []\n";
  refused((dir / "unknown.yaml").string(), "unknown key 'rulez'");
  std::ofstream(dir / "regex.yaml") << "rules:\n  - {from: '(', to: ''}\n";
  refused((dir / "regex.yaml").string(), "rules[0]");
  std::ofstream(dir / "shape.yaml") << "rules:\n  - {from: 'a'}\n";
  refused((dir / "shape.yaml").string(), "{from: REGEX, to: REPLACEMENT}");
  std::ofstream(dir / "broken.yaml") << "rules: [\n";
  refused((dir / "broken.yaml").string(), "not valid YAML or JSON");
}
