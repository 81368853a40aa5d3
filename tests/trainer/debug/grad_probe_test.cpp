// The gradient-sign probe end to end: ResNet-18 from PyTorch's initial
// weights on one fixed batch, trained three steps by our trainer with
// --probe-grads all, clean and with planted faults, and by
// samples/torch/dump_reference.py --probe-grads; `parity grad-probe` must
// find no bad step between clean runs (ours twice, ours and PyTorch's) and
// name the step each fault first shows in the gradients.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace {

struct ProbeRuns {
  TempDir dir;
  ProbeRuns() {
    run_ok({PARITY_PYTHON, PARITY_DUMP_REFERENCE, "--model", "resnet18", "--num-classes", "10",
            "--seed", "0", "--save-init", (dir / "init.pth").string(), "--make-batch", "4,3,32,32",
            "--save-images", (dir / "x.npy").string(), "--save-labels", (dir / "y.npy").string()});
    // dump_reference.py's training: constant lr, momentum 0.9, weight decay
    // 1e-4 on weights only, label smoothing 0.1 over all classes; one thread,
    // so that two runs of ours are bit-identical.
    std::ofstream(dir / "config.yaml") << "net_name: resnet18\nclass_num: 10\nstem: imagenet\n"
                                          "lr_decay_mode: constant\nlr_max: 0.001\nmomentum: 0.9\n"
                                          "weight_decay: 0.0001\nlabel_smooth_factor: 0.1\n"
                                          "label_smooth_convention: pytorch\nepoch_size: 3\n"
                                          "save_checkpoint: false\nthreads: 1\n";
  }
  static void run_ok(const std::vector<std::string>& argv) {
    const ProcessResult result = run_process(argv);
    INFO(argv[1] << "\n" << result.out << result.err);
    REQUIRE(result.exit_code == 0);
  }
  std::string ours(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv{PARITY_TRAIN,     "train",
                                  "--config",       (dir / "config.yaml").string(),
                                  "--init-weights", (dir / "init.pth").string(),
                                  "--input-batch",  (dir / "x.npy").string(),
                                  "--input-labels", (dir / "y.npy").string(),
                                  "--probe-grads",  "all",
                                  "--probe-dir",    (dir / name).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    run_ok(argv);
    return (dir / name).string();
  }
  std::string torch(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv{
        PARITY_PYTHON, PARITY_DUMP_REFERENCE, "--model", "resnet18", "--num-classes", "10",
        "--weights", (dir / "init.pth").string(), "--images", (dir / "x.npy").string(),
        "--labels", (dir / "y.npy").string(), "--steps", "3", "--lr", "0.001", "--threads", "1",
        "--probe-grads", "all", "--probe-dir", (dir / name).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    run_ok(argv);
    return (dir / name).string();
  }
};

struct Verdict {
  int exit_code = -1;
  nlohmann::json report;
};

Verdict grad_probe(const std::string& a, const std::string& b, const std::string& reference = {}) {
  std::vector<std::string> argv{PARITY_CLI, "grad-probe", a, b, "--format", "json"};
  if (!reference.empty()) argv.insert(argv.end(), {"--reference", reference});
  const ProcessResult result = run_process(argv);
  INFO(result.err);
  Verdict verdict{result.exit_code, {}};
  if (result.exit_code != 2) verdict.report = nlohmann::json::parse(result.out);
  return verdict;
}

}  // namespace

TEST_CASE("parity grad-probe finds no bad step between clean runs and the first step of each "
          "planted fault",
          "[e2e]") {
  ProbeRuns runs;
  const std::string clean = runs.ours("clean");

  SECTION("our run twice: every sign agrees") {
    const Verdict v = grad_probe(clean, runs.ours("again"));
    CHECK(v.exit_code == 0);
    REQUIRE(v.report["steps"].size() == 3);
    for (const auto& step : v.report["steps"]) CHECK(step["similarity"] == 1.0);
  }
  SECTION("our run against PyTorch's: the first gradients' signs agree") {
    const Verdict v = grad_probe(clean, runs.torch("torch"));
    INFO(v.report.dump(1));
    REQUIRE(v.exit_code != 2);
    REQUIRE(v.report["steps"].size() == 3);
    // A few elements within rounding of zero differ from the first step on.
    CHECK(v.report["steps"][0]["similarity"].get<double>() > 0.999);
    // From step 1 on this batch of 4 is chaotic, and how fast two correct
    // runs part depends on the CPU's rounding: no bad step on an AVX-512
    // machine, 91% of the signs agreeing at step 2 on an AVX2 one
    // (2026-11-28). Only the float64 reference can judge those steps (the
    // next section); without it, step 0 must be good.
    CHECK(v.report["first_bad_step"] != 0);
  }
  SECTION("against PyTorch's float64 run, ours strays no further than PyTorch's float32") {
    const std::string torch = runs.torch("torch"), exact = runs.torch("torch64", {"--float64"});
    const Verdict clean_pair = grad_probe(clean, torch, exact);
    INFO(clean_pair.report.dump(1));
    CHECK(clean_pair.exit_code == 0);
    REQUIRE(clean_pair.report["steps"].size() == 3);
    for (const auto& step : clean_pair.report["steps"])
      CHECK(step["reference"]["ratio"].get<double>() <= 2.0);
    const Verdict bug = grad_probe(runs.ours("bn-eps", {"--plant-bug", "bn-eps:layer2.0.bn1"}),
                                   torch, exact);
    INFO(bug.report.dump(1));
    CHECK(bug.exit_code == 1);
    REQUIRE(bug.report["first_bad_step"].is_number());
    const int first = bug.report["first_bad_step"];  // steps 0, 1, 2: its index too
    CHECK(bug.report["steps"][first]["verdict"] == "further_from_reference");
  }
  SECTION("a NaN planted at step 2 makes step 2 the first bad one") {
    const Verdict v = grad_probe(clean, runs.ours("nan", {"--plant-nan", "layer3.0.conv1@2"}));
    CHECK(v.exit_code == 1);
    CHECK(v.report["first_bad_step"] == 2);
    CHECK(v.report["steps"][1]["similarity"] == 1.0);
  }
  SECTION("a batch norm's epsilon barely moves step 0's signs; step 1 is the first bad one") {
    const Verdict v = grad_probe(clean, runs.ours("bn-eps", {"--plant-bug", "bn-eps:layer2.0.bn1"}));
    CHECK(v.exit_code == 1);
    CHECK(v.report["first_bad_step"] == 1);
    CHECK(v.report["steps"][0]["similarity"].get<double>() > 0.97);
    CHECK(v.report["steps"][0]["similarity"].get<double>() < 1.0);
  }
}

TEST_CASE("parity grad-probe refuses a cut probe and probes of different parameters (exit 2)",
          "[e2e]") {
  ProbeRuns runs;
  const std::string clean = runs.ours("clean");
  SECTION("a cut file") {
    const auto signs = std::filesystem::path(clean) / "signs.bin";
    std::filesystem::resize_file(signs, std::filesystem::file_size(signs) - 100);
    const ProcessResult result = run_process({PARITY_CLI, "grad-probe", clean, clean});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("ends inside record 2") != std::string::npos);
    CHECK(result.err.find("signs.bin byte") != std::string::npos);
  }
  SECTION("different parameters") {
    std::vector<std::string> argv{PARITY_TRAIN, "train", "--config", (runs.dir / "config.yaml").string(),
                                  "--init-weights", (runs.dir / "init.pth").string(),
                                  "--input-batch", (runs.dir / "x.npy").string(),
                                  "--input-labels", (runs.dir / "y.npy").string(),
                                  "--max-steps", "1", "--probe-grads", "layer4.*,fc.*",
                                  "--probe-dir", (runs.dir / "part").string()};
    ProbeRuns::run_ok(argv);
    const ProcessResult result =
        run_process({PARITY_CLI, "grad-probe", clean, (runs.dir / "part").string()});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("B does not probe conv1.weight") != std::string::npos);
  }
}
