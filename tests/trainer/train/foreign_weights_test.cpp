// `parity-train eval --checkpoint` and `train --init-weights` read weights in
// every format `parity diff` reads, lined up by the same name maps: a
// torchvision ResNet-18 saved by torch.save, the same weights as
// safetensors, and as a MindSpore model_zoo checkpoint that also holds a
// Momentum optimizer's state, all evaluate to the same numbers; weights that
// do not fit the network are refused with every misfit named.
#include <catch2/catch.hpp>
#include <regex>

#include "resnet_checkpoint_peer.hpp"
#include "temp_dir.hpp"
#include "train_cli.hpp"

namespace fs = std::filesystem;
using namespace parity_train_cli;

namespace {

// A torchvision ResNet-18 with 4 classes (seed 0), written by the peer.
fs::path weights(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  args.insert(args.begin(), {"--arch", "resnet18", "--num-classes", "4"});
  return resnet_checkpoint(dir.path(), name, args);
}

void run_ok(const std::vector<std::string>& command) {
  const auto result = run_process(command);
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
}

// torchvision's stem: a 7x7 convolution and a max pool.
fs::path torchvision_config(const TempDir& dir) {
  return Config(dir.path()).set("stem", "imagenet").write(dir / "eval.yaml");
}

// "top-1: 25.00%  top-5: 100.00%  loss: 1.3863" of an eval that must succeed.
std::string accuracy_of(const ProcessResult& eval) {
  INFO(eval.out << eval.err);
  REQUIRE(eval.exit_code == 0);
  std::smatch match;
  REQUIRE(std::regex_search(eval.out, match, std::regex(R"(top-1: .*)")));
  return match.str();
}

ProcessResult eval(const fs::path& config, const fs::path& checkpoint) {
  return parity_train({"eval", "--config", config.string(), "--checkpoint", checkpoint.string()});
}

}  // namespace

TEST_CASE("eval reads a torchvision .pth, its safetensors and a MindSpore .ckpt alike", "[e2e]") {
  TempDir dir;
  const auto config = torchvision_config(dir);
  const auto pth = weights(dir, "w.pth", {});
  const auto safetensors = weights(dir, "w.safetensors", {});
  const auto modelzoo = weights(dir, "ms.safetensors", {"--style", "modelzoo", "--training-state"});
  const auto ckpt = dir / "ms.ckpt";
  run_ok({PARITY_CLI, "convert", modelzoo.string(), ckpt.string()});

  const auto from_pth = eval(config, pth);
  const std::string expected = accuracy_of(eval(config, safetensors));
  CHECK(accuracy_of(from_pth) == expected);
  CHECK_THAT(from_pth.out, Catch::Contains("weights: " + pth.string() +
                                           " (pytorch, names by identity, 122 tensors)"));
  CHECK_THAT(from_pth.out,
             Catch::Contains("evaluated " + pth.string() + " (pytorch weights) on 48 images"));

  const auto from_ckpt = eval(config, ckpt);
  CHECK(accuracy_of(from_ckpt) == expected);
  CHECK_THAT(from_ckpt.out, Catch::Contains("(mindspore, names by modelzoo-to-torch, 102 tensors)\n"
                                            "  skipped 67 entries of optimizer state and training "
                                            "bookkeeping\n"
                                            "  num_batches_tracked: 20 batch counters set to 0"));
}

TEST_CASE("our checkpoint converted to a .pth evaluates as the checkpoint does", "[e2e]") {
  TempDir dir;
  const auto config = Config(dir.path()).set("epoch_size", "1").write(dir / "run.yaml");
  const auto train = parity_train({"train", "--config", config.string(), "--max-steps", "2"});
  INFO(train.err);
  REQUIRE(train.exit_code == 0);
  const fs::path checkpoint = last_checkpoint(train.out);
  const auto pth = dir / "run.pth";
  run_ok({PARITY_CLI, "convert", checkpoint.string(), pth.string()});

  const auto from_pth = eval(config, pth);
  CHECK(accuracy_of(from_pth) == accuracy_of(eval(config, checkpoint)));
  // The momentum buffers are the optimizer's, not the network's.
  CHECK_THAT(from_pth.out, Catch::Contains("skipped 62 entries of optimizer state"));

  const auto resumed = parity_train(
      {"train", "--config", config.string(), "--max-steps", "1", "--init-weights", pth.string()});
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(resumed.out, Catch::Contains("initial weights: " + pth.string() +
                                          " (pytorch, names by identity, 122 tensors)"));
}

TEST_CASE("init-weights lines up a MindSpore checkpoint's names", "[e2e]") {
  TempDir dir;
  const auto config = torchvision_config(dir);
  const auto mindspore = weights(dir, "ms.safetensors", {"--style", "mindspore"});
  const auto ckpt = dir / "ms.ckpt";
  run_ok({PARITY_CLI, "convert", mindspore.string(), ckpt.string()});
  const auto run = parity_train(
      {"train", "--config", config.string(), "--max-steps", "1", "--init-weights", ckpt.string()});
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("initial weights: " + ckpt.string() +
                                      " (mindspore, names by mindspore-to-torch, 102 tensors)"));
  // An explicit map that does not fit is refused, naming what it left over.
  check_refused(parity_train({"train", "--config", config.string(), "--max-steps", "1",
                              "--init-weights", ckpt.string(), "--map", "identity"}),
                {"ms.ckpt", "the file's tensors do not fit this network", "missing (bn1.weight, ",
                 "not in the network (bn1.moving_mean, ", "names were lined up by identity"});
}

TEST_CASE("weights that do not fit the network are refused, every misfit named, exit code 2",
          "[e2e]") {
  TempDir dir;
  const auto config = torchvision_config(dir);
  const auto ten_classes = weights(dir, "ten.pth", {"--num-classes", "10"});
  check_refused(eval(config, ten_classes),
                {"ten.pth",
                 "2 of another shape (fc.weight: [10, 512] in the file, [4, 512] in "
                 "the network; fc.bias: [10] in the file, [4] in the network)"});

  const auto pth = weights(dir, "w.pth", {});
  const auto edited = dir / "edited.pth";
  run_ok({PARITY_PYTHON, "-c",
          "import sys, torch\n"
          "state = torch.load(sys.argv[1])\n"
          "del state['fc.weight'], state['fc.bias']\n"
          "state['head.weight'] = torch.zeros(2)\n"
          "state['conv1.weight'] = state['conv1.weight'].int()\n"
          "torch.save(state, sys.argv[2])\n",
          pth.string(), edited.string()});
  check_refused(
      eval(config, edited),
      {"edited.pth", "2 missing (fc.weight, fc.bias)", "1 not in the network (head.weight)",
       "1 of an unusable dtype (conv1.weight: int32, the network's is float32)"});
  check_refused(
      parity_train({"train", "--config", config.string(), "--init-weights", edited.string()}),
      {"edited.pth", "2 missing (fc.weight, fc.bias)"});

  std::ofstream(dir / "garbage.pth") << "not weights at all";
  check_refused(eval(config, dir / "garbage.pth"), {"garbage.pth", "not a tensor file"});
}
