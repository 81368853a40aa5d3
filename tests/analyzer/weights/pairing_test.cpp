// The pairing target: every MindSpore ResNet-50 parameter (267, both naming
// styles) paired with the right one of PyTorch's 320 state_dict entries, with
// zero wrong pairs, by the automatic mode and by structure alone, in
// MindSpore's order and alphabetically, with equal or unrelated values.
#include "parity/analyzer/weights/pairing.hpp"

#include <catch2/catch.hpp>
#include <regex>

#include "parity/importers/safetensors.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

using namespace parity;
using namespace parity::analyzer;

namespace {

std::filesystem::path make_checkpoint(const TempDir& dir, const std::string& arch,
                                      const std::string& style, const std::string& order,
                                      int seed) {
  const std::string name =
      arch + "_" + style + "_" + order + "_" + std::to_string(seed) + ".safetensors";
  const auto result = run_process({PARITY_PYTHON, PARITY_RESNET_CHECKPOINTS, dir.path().string(),
                                   "--arch", arch, "--style", style, "--order", order, "--seed",
                                   std::to_string(seed), "--name", name});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return dir / name;
}

// The PyTorch name a MindSpore name must pair with, by the seeds' table.
std::string torch_name_of(std::string name) {
  name = std::regex_replace(name, std::regex("down_sample_layer"), "downsample");
  name = std::regex_replace(name, std::regex("^end_point\\."), "fc.");
  name = std::regex_replace(name, std::regex("\\.gamma$"), ".weight");
  name = std::regex_replace(name, std::regex("\\.beta$"), ".bias");
  name = std::regex_replace(name, std::regex("\\.moving_mean$"), ".running_mean");
  return std::regex_replace(name, std::regex("\\.moving_variance$"), ".running_var");
}

void check_resnet50_pairing(const Pairing& pairing, const std::vector<importers::TensorEntry>& ms,
                            const std::vector<importers::TensorEntry>& torch) {
  std::size_t wrong = 0;
  for (const ParameterPair& pair : pairing.pairs) {
    INFO(ms[pair.a].name << " paired with " << torch[pair.b].name << " by " << pair.how);
    CHECK(torch[pair.b].name == torch_name_of(ms[pair.a].name));
    wrong += torch[pair.b].name == torch_name_of(ms[pair.a].name) ? 0 : 1;
  }
  CHECK(pairing.pairs.size() == 267);
  CHECK(wrong == 0);
  CHECK(pairing.only_a.empty());
  CHECK(pairing.only_b.empty());
  CHECK(pairing.no_counterpart_a.empty());
  REQUIRE(pairing.no_counterpart_b.size() == 53);
  for (const Lonely& lonely : pairing.no_counterpart_b)
    CHECK_THAT(torch[lonely.index].name, Catch::EndsWith("num_batches_tracked"));
  CHECK(pairing.ambiguous_count() == 0);
}

}  // namespace

TEST_CASE("ResNet-50: all 267 MindSpore parameters pair with the right PyTorch ones",
          "[unit][weights]") {
  TempDir dir;
  const auto torch_file =
      importers::open_safetensors_source(make_checkpoint(dir, "resnet50", "torch", "network", 0));
  const auto& torch = torch_file->entries();
  REQUIRE(torch.size() == 320);
  for (const std::string style : {"mindspore", "modelzoo"})
    for (const std::string order : {"network", "alphabetical"}) {
      // Unrelated values (another seed): the pairing may use names, shapes and order only.
      const auto ms_file =
          importers::open_safetensors_source(make_checkpoint(dir, "resnet50", style, order, 1));
      const auto& ms = ms_file->entries();
      REQUIRE(ms.size() == 267);
      for (const std::string mode : {"auto", "structure"}) {
        INFO(style << " naming, " << order << " order, --map " << mode);
        const Pairing pairing = pair_tensors(ms, torch, mode);
        check_resnet50_pairing(pairing, ms, torch);
        if (mode == "structure")
          for (const ParameterPair& pair : pairing.pairs) CHECK(pair.how == "structure");
      }
    }
}

TEST_CASE("auto pairing strips wrapper prefixes and reports what is left alone",
          "[unit][weights]") {
  using importers::TensorEntry;
  const std::vector<TensorEntry> a{{"state_dict.conv.weight", DType::kFloat32, {8, 3, 3, 3}},
                                   {"state_dict.bn.weight", DType::kFloat32, {8}},
                                   {"state_dict.bn.running_mean", DType::kFloat32, {8}},
                                   {"state_dict.fc.weight", DType::kFloat32, {10, 8}},
                                   {"state_dict.extra.weight", DType::kFloat32, {7}}};
  const std::vector<TensorEntry> b{{"conv.weight", DType::kFloat32, {8, 3, 3, 3}},
                                   {"bn.gamma", DType::kFloat32, {8}},
                                   {"bn.moving_mean", DType::kFloat32, {8}},
                                   {"fc.weight", DType::kFloat32, {5, 8}},
                                   {"global_step", DType::kInt32, {1}}};
  const Pairing pairing = pair_tensors(a, b, "auto");
  CHECK_THAT(pairing.method,
             Catch::Contains("torch-to-mindspore") && Catch::Contains("A without 'state_dict.'"));
  REQUIRE(pairing.pairs.size() == 4);
  CHECK(pairing.pairs[3].a == 3);  // fc pairs by name though the shapes differ: a shape mismatch
  CHECK(pairing.pairs[3].b == 3);
  CHECK(pairing.only_a == std::vector<std::size_t>{4});
  // global_step is the optimizer's: set aside, not unpaired.
  CHECK(pairing.only_b.empty());
  REQUIRE(pairing.training_state_b.size() == 1);
  CHECK(pairing.training_state_b[0].index == 4);
  CHECK(pairing.training_state_b[0].state.kind == importers::TrainingStateKind::kOptimizer);
  const Pairing strict = pair_tensors(a, b, "auto", /*set_aside_training_state=*/false);
  CHECK(strict.only_b == std::vector<std::size_t>{4});
  CHECK(strict.training_state_b.empty());

  const Pairing by_map = pair_tensors(a, b, "identity");
  CHECK(by_map.pairs.size() == 2);  // conv.weight and fc.weight
}
