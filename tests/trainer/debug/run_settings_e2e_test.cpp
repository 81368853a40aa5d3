// The settings our trainer and samples/torch/dump_reference.py record in a
// dump's header (docs/formats/dump.md) use one vocabulary, written the same
// way: two runs set up alike differ in no hyper-parameter, and `parity
// compare` names exactly the ones set apart, and an environment variable
// one run had.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace {

void run_ok(const std::vector<std::string>& argv) {
  const ProcessResult result = run_process(argv);
  INFO(argv[0] << " " << (argv.size() > 1 ? argv[1] : "") << "\n" << result.out << result.err);
  REQUIRE(result.exit_code == 0);
}

// A ResNet-18 step on a 2-image 32x32 batch, both sides from the same weights.
struct SmallRuns {
  TempDir dir;
  SmallRuns() {
    run_ok({PARITY_PYTHON, PARITY_DUMP_REFERENCE, "--model", "resnet18", "--num-classes", "10",
            "--save-init", (dir / "init.pth").string(), "--make-batch", "2,3,32,32",
            "--save-images", (dir / "x.npy").string(), "--save-labels", (dir / "y.npy").string()});
    std::ofstream(dir / "config.yaml") << "net_name: resnet18\nclass_num: 10\nstem: imagenet\n"
                                          "lr_decay_mode: constant\nlr_max: 0.001\nmomentum: 0.9\n"
                                          "weight_decay: 0.0001\nlabel_smooth_factor: 0.1\n"
                                          "label_smooth_convention: pytorch\nepoch_size: 1\n"
                                          "save_checkpoint: false\nthreads: 1\n";
  }
  void torch_dump(const std::string& name, const std::string& lr, const std::string& momentum) {
    run_ok({PARITY_PYTHON, PARITY_DUMP_REFERENCE, "--model", "resnet18", "--num-classes", "10",
            "--weights", (dir / "init.pth").string(), "--images", (dir / "x.npy").string(),
            "--labels", (dir / "y.npy").string(), "--steps", "1", "--lr", lr, "--momentum",
            momentum, "--weight-decay", "1e-4", "--label-smoothing", "0.1", "--threads", "1",
            "--dump-stats-only", "--dump", (dir / name).string()});
  }
  void our_dump(const std::string& name) {
    // OMP_SCHEDULE: a variable only this run has (run_process passes the environment on).
    run_ok({"/usr/bin/env", "OMP_SCHEDULE=static", PARITY_TRAIN, "train", "--config",
            (dir / "config.yaml").string(), "--init-weights", (dir / "init.pth").string(),
            "--input-batch", (dir / "x.npy").string(), "--input-labels",
            (dir / "y.npy").string(), "--dump-stats-only", "--dump", (dir / name).string()});
  }
  nlohmann::json settings_diff(const std::string& a, const std::string& b) {
    const ProcessResult result = run_process(
        {PARITY_CLI, "compare", (dir / a).string(), (dir / b).string(), "--format", "json"});
    INFO(result.err);
    REQUIRE(result.exit_code != 2);
    return nlohmann::json::parse(result.out)["settings"];
  }
};

std::vector<nlohmann::json> in_section(const nlohmann::json& settings, const std::string& section) {
  std::vector<nlohmann::json> found;
  for (const auto& item : settings)
    if (item["section"] == section) found.push_back(item);
  return found;
}

}  // namespace

TEST_CASE("our trainer and dump_reference.py record the same settings alike", "[e2e][compare]") {
  SmallRuns runs;
  runs.our_dump("ours");
  runs.torch_dump("torch", "0.001", "0.9");
  runs.torch_dump("torch_apart", "0.002", "0.8");

  const nlohmann::json alike = runs.settings_diff("ours", "torch");
  INFO(alike.dump(2));
  CHECK(in_section(alike, "config").empty());
  const auto environment = in_section(alike, "environment");
  REQUIRE(environment.size() == 1);
  CHECK(environment[0]["setting"] == "OMP_SCHEDULE");
  CHECK(environment[0]["a"] == "static");
  CHECK(environment[0]["b"].is_null());
  CHECK_FALSE(in_section(alike, "versions").empty());  // parity-train and torch: never alike

  const auto apart = in_section(runs.settings_diff("ours", "torch_apart"), "config");
  REQUIRE(apart.size() == 2);
  CHECK(apart[0] == nlohmann::json{{"section", "config"}, {"setting", "lr"}, {"a", "0.001"},
                                   {"b", "0.002"}});
  CHECK(apart[1] == nlohmann::json{{"section", "config"}, {"setting", "momentum"}, {"a", "0.9"},
                                   {"b", "0.8"}});
}
