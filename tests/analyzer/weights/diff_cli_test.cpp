// `parity diff` end to end: real processes on ResNet-18 checkpoints written by
// PyTorch, in every report format, with findings planted by the peer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "process.hpp"
#include "resnet_checkpoint_peer.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path checkpoint(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  args.insert(args.begin(), {"--arch", "resnet18"});
  return resnet_checkpoint(dir.path(), name, args);
}

ProcessResult parity_diff(std::vector<std::string> args) {
  args.insert(args.begin(), {PARITY_CLI, "diff"});
  return run_process(args);
}

json diff_json(std::vector<std::string> args, int expected_exit) {
  args.insert(args.end(), {"--format", "json"});
  const auto result = parity_diff(args);
  INFO(result.err);
  REQUIRE(result.exit_code == expected_exit);
  return json::parse(result.out);
}

const json& parameter(const json& report, const std::string& a_name) {
  for (const json& p : report["parameters"])
    if (p["a"] == a_name) return p;
  FAIL("no parameter " << a_name);
  throw;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("parity diff: identical checkpoints agree, exit code 0", "[e2e][weights]") {
  TempDir dir;
  const auto a = checkpoint(dir, "a.safetensors", {});
  const auto b = checkpoint(dir, "b.safetensors", {});
  const auto result = parity_diff({a.string(), b.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::StartsWith("Weight diff: AGREE\n"));
  CHECK_THAT(result.out, Catch::Contains("\n  A: " + a.string() + " (safetensors)\n"));
  CHECK_THAT(result.out, Catch::Contains("summary: 122 equal, 0 close, 0 mismatch"));
}

TEST_CASE("parity diff: a MindSpore-named checkpoint with one planted change", "[e2e][weights]") {
  TempDir dir;
  const auto ms = checkpoint(dir, "ms.safetensors",
                             {"--style", "modelzoo", "--perturb", "layer2.1.conv2.weight=0.5"});
  const auto torch = checkpoint(dir, "torch.safetensors", {});
  const json report = diff_json({ms.string(), torch.string()}, 1);
  CHECK(report["summary"]["agree"] == false);
  CHECK(report["summary"]["counts"]["equal"] == 101);
  CHECK(report["summary"]["counts"]["mismatch"] == 1);
  CHECK(report["summary"]["counts"]["no counterpart"] == 20);
  const json& changed = parameter(report, "layer2.1.conv2.weight");
  CHECK(changed["status"] == "mismatch");
  CHECK(changed["b"] == "layer2.1.conv2.weight");
  CHECK(changed["metrics"]["max_abs_diff"].get<double>() == Approx(0.5).epsilon(1e-6));
  CHECK(changed["metrics"]["max_abs_index"] == 0);
  CHECK(changed["metrics"]["within_tolerance"] == 128 * 128 * 9 - 1);
  CHECK(parameter(report, "layer3.0.down_sample_layer.1.gamma")["b"] ==
        "layer3.0.downsample.1.weight");
  CHECK(parameter(report, "end_point.bias")["b"] == "fc.bias");

  const auto text = parity_diff({ms.string(), torch.string()});
  CHECK(text.exit_code == 1);
  CHECK_THAT(text.out, Catch::StartsWith("Weight diff: DIFFER (1 findings)\n"));
  CHECK_THAT(text.out,
             Catch::Contains("  - mismatch layer2.1.conv2.weight <-> layer2.1.conv2.weight  "
                             "[128, 128, 3, 3] float32  max abs 0.5 at [0, 0, 0, 0]"));
}

TEST_CASE("parity diff: tolerances by dtype, --rtol/--atol and --tol globs", "[e2e][weights]") {
  TempDir dir;
  const auto a = checkpoint(dir, "a.safetensors",
                            {"--perturb", "fc.bias=1e-4", "--dtype", "conv1.weight=float16"});
  const auto b = checkpoint(dir, "b.safetensors", {});
  const json strict = diff_json({a.string(), b.string()}, 1);
  CHECK(parameter(strict, "fc.bias")["status"] == "mismatch");
  // float16 against float32: float16's tolerance, and the dtype is a finding of its own.
  const json& conv = parameter(strict, "conv1.weight");
  CHECK(conv["status"] == "dtype differs");
  CHECK(conv["rtol"] == 1e-3);
  CHECK(conv["dtype_a"] == "float16");

  const json loose = diff_json({a.string(), b.string(), "--tol", "fc.*=0,1e-3"}, 1);
  CHECK(parameter(loose, "fc.bias")["status"] == "close");
  CHECK(parameter(loose, "fc.bias")["atol"] == 1e-3);
  const json global = diff_json({a.string(), b.string(), "--atol", "1e-3"}, 1);
  CHECK(parameter(global, "fc.bias")["status"] == "close");
}

TEST_CASE("parity diff: csv, md and junit reports, -o", "[e2e][weights]") {
  TempDir dir;
  const auto a =
      checkpoint(dir, "a.safetensors", {"--style", "mindspore", "--perturb", "fc.weight=1"});
  const auto b = checkpoint(dir, "b.safetensors", {});
  const auto csv = parity_diff({a.string(), b.string(), "--format", "csv"});
  CHECK(csv.exit_code == 1);
  std::istringstream lines(csv.out);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) ++rows;
  CHECK(rows == 2 + 102 + 20);  // summary comment, header, pairs, no-counterpart rows
  CHECK_THAT(csv.out,
             Catch::Contains("mismatch,fc.weight,fc.weight,\"[1000, 512]\",float32,1,\"[0, 0]\""));

  const auto junit =
      parity_diff({a.string(), b.string(), "--format", "junit", "-o", (dir / "r.xml").string()});
  CHECK(junit.exit_code == 1);
  CHECK(junit.out.empty());
  const std::string xml = read_file(dir / "r.xml");
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"parity diff\" tests=\"122\" failures=\"1\""));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"mismatch: fc.weight &lt;-&gt; fc.weight"));

  const auto md = parity_diff({a.string(), b.string(), "--format", "md"});
  CHECK_THAT(md.out, Catch::StartsWith("# Weight diff: DIFFER (1 findings)"));
  CHECK_THAT(md.out, Catch::Contains(", 20 no counterpart; 0 ambiguous pairs |"));
}

TEST_CASE("parity diff: a MindSpore checkpoint with optimizer state against a .pth agrees",
          "[e2e][weights]") {
  // What MindSpore's ModelCheckpoint writes with a Momentum optimizer: 62
  // moments.* beside the 102 parameters, and learning_rate, momentum,
  // global_step, epoch_num, step_num. They are listed apart, in every format,
  // and fail the verdict only with --strict.
  TempDir dir;
  const auto with_state =
      checkpoint(dir, "ms.safetensors", {"--style", "mindspore", "--training-state"});
  const auto ckpt = dir / "ms.ckpt";
  const auto converted = run_process({PARITY_CLI, "convert", with_state.string(), ckpt.string()});
  INFO(converted.err);
  REQUIRE(converted.exit_code == 0);
  const auto torch = checkpoint(dir, "torch.pth", {});

  const json report = diff_json({ckpt.string(), torch.string()}, 0);
  CHECK(report["summary"]["format_a"] == "mindspore");
  CHECK(report["summary"]["format_b"] == "pytorch");
  CHECK(report["summary"]["agree"] == true);
  CHECK(report["summary"]["counts"]["equal"] == 102);
  CHECK(report["summary"]["counts"]["no counterpart"] == 20);
  CHECK(report["summary"]["counts"]["only in A"] == 0);
  CHECK(report["summary"]["training_state"]["a"] == 67);
  CHECK(report["summary"]["training_state"]["b"] == 0);
  REQUIRE(report["training_state"].size() == 67);
  const json& moment = report["training_state"][0];
  CHECK(moment["side"] == "A");
  CHECK(moment["name"] == "moments.conv1.weight");
  CHECK(moment["kind"] == "optimizer state");
  CHECK(moment["shape"] == json::array({64, 3, 7, 7}));
  CHECK(moment["note"] == "MindSpore Momentum (or FTRL) moments of conv1.weight");

  const auto text = parity_diff({ckpt.string(), torch.string()});
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::StartsWith("Weight diff: AGREE\n"));
  CHECK_THAT(text.out, Catch::Contains("  training state: 67 in A, 0 in B, not compared (--strict "
                                       "pairs and compares it)"));
  // The training-state table: side, name, kind, shape, dtype, what.
  CHECK(std::regex_search(text.out, std::regex("\n  A +epoch_num +bookkeeping +\\[\\] +int32 +"
                                               "MindSpore ModelCheckpoint's epoch number\n")));
  CHECK(std::regex_search(text.out,
                          std::regex("\n  A +global_step +optimizer state +\\[1\\] +int32 ")));

  const auto csv = parity_diff({ckpt.string(), torch.string(), "--format", "csv"});
  CHECK(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::Contains("; training state 67 in A, 0 in B\n"));
  CHECK_THAT(csv.out, Catch::Contains("\noptimizer state,learning_rate,,[],float32,,,,,,,,,,"
                                      "MindSpore optimizer's learning rate\n"));
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 2 + 102 + 20 + 67);

  const auto md = parity_diff({ckpt.string(), torch.string(), "--format", "md"});
  CHECK_THAT(md.out, Catch::Contains("| training state | 67 in A, 0 in B, not compared"));
  CHECK_THAT(md.out, Catch::Contains("## Training state, not compared"));
  CHECK_THAT(md.out, Catch::Contains("| A | step_num | bookkeeping | [] | int32 |"));

  const auto junit = parity_diff({ckpt.string(), torch.string(), "--format", "junit"});
  CHECK(junit.exit_code == 0);
  CHECK_THAT(junit.out, Catch::Contains("failures=\"0\" skipped=\"67\""));
  CHECK_THAT(junit.out,
             Catch::Contains("<testcase classname=\"training_state\" name=\"momentum\""));

  const json strict = diff_json({ckpt.string(), torch.string(), "--strict"}, 1);
  CHECK(strict["summary"]["counts"]["only in A"] == 67);
  CHECK(strict["training_state"].empty());
}

TEST_CASE("parity diff: a PyTorch training checkpoint's optimizer is listed apart on B's side",
          "[e2e][weights]") {
  TempDir dir;
  const auto plain = checkpoint(dir, "plain.safetensors", {});
  const auto training = checkpoint(dir, "training.pth", {"--training-state"});
  const json report = diff_json({plain.string(), training.string()}, 0);
  CHECK(report["summary"]["counts"]["equal"] == 122);
  CHECK_THAT(report["summary"]["pairing"].get<std::string>(),
             Catch::Contains("B without 'state_dict.'"));
  // 62 momentum buffers and best_acc1 (epoch is an int, not a tensor).
  CHECK(report["summary"]["training_state"]["b"] == 63);
  CHECK(report["training_state"][0]["name"] == "best_acc1");
  CHECK(report["training_state"][1]["name"] == "optimizer.state.0.momentum_buffer");
  CHECK(report["training_state"][1]["kind"] == "optimizer state");
}

TEST_CASE("parity diff: bad input is named, exit code 2", "[e2e][weights]") {
  TempDir dir;
  const auto good = checkpoint(dir, "good.safetensors", {});
  std::ofstream(dir / "garbage.pth") << "this is not a checkpoint";
  const auto refused = [](const ProcessResult& result, const std::string& message) {
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(message));
    CHECK(result.out.empty());
  };
  refused(parity_diff({(dir / "missing.pth").string(), good.string()}), "missing.pth");
  refused(parity_diff({(dir / "garbage.pth").string(), good.string()}), "garbage.pth");
  refused(parity_diff({good.string(), good.string(), "--tol", "fc.*=1e-3"}),
          "expected GLOB=RTOL,ATOL");
  refused(parity_diff({good.string(), good.string(), "--tol", "fc.*=x,1"}),
          "'x' is not a tolerance");
  refused(parity_diff({good.string(), good.string(), "--map", "nowhere.yaml"}),
          "neither a built-in name map");
  refused(parity_diff({good.string(), good.string(), "--format", "xml"}), "--format");
}

TEST_CASE("parity convert: PyTorch names to a MindSpore checkpoint and back", "[e2e][weights]") {
  TempDir dir;
  const auto torch = checkpoint(dir, "torch.safetensors", {});
  const auto ckpt = dir / "model_zoo.ckpt";
  const auto to_ms = run_process(
      {PARITY_CLI, "convert", torch.string(), ckpt.string(), "--map", "torch-to-modelzoo"});
  INFO(to_ms.err);
  REQUIRE(to_ms.exit_code == 0);
  CHECK_THAT(to_ms.out, Catch::StartsWith("wrote 102 tensors to " + ckpt.string()));
  // One line for the 20 batch counters, not 20 lines.
  CHECK_THAT(to_ms.out,
             Catch::Contains("dropped 20:\n  20 tensors named *.num_batches_tracked "
                             "(bn1.num_batches_tracked ... "
                             "layer4.1.bn2.num_batches_tracked): MindSpore's BatchNorm"));
  CHECK(std::count(to_ms.out.begin(), to_ms.out.end(), '\n') == 3);

  const json ms_report = diff_json({ckpt.string(), torch.string()}, 0);
  CHECK(ms_report["summary"]["format_a"] == "mindspore");
  CHECK(ms_report["summary"]["counts"]["equal"] == 102);
  CHECK(parameter(ms_report, "layer4.0.down_sample_layer.1.moving_variance")["b"] ==
        "layer4.0.downsample.1.running_var");

  // Back to PyTorch's names, paired against the original, as an .npz.
  const auto back = dir / "back.npz";
  const auto to_torch =
      run_process({PARITY_CLI, "convert", ckpt.string(), back.string(), "--like", torch.string()});
  INFO(to_torch.err);
  REQUIRE(to_torch.exit_code == 0);
  CHECK_THAT(to_torch.out, Catch::Contains("created 20:\n  20 tensors named *.num_batches_tracked "
                                           "(bn1.num_batches_tracked ... "
                                           "layer4.1.bn2.num_batches_tracked): created as 0"));
  const json back_report = diff_json({back.string(), torch.string(), "--map", "identity"}, 1);
  CHECK(back_report["summary"]["counts"]["equal"] == 102);
  CHECK(back_report["summary"]["counts"]["only in B"] == 0);
  // The counters exist now, as 0 where PyTorch counted 1000 batches.
  CHECK(back_report["summary"]["counts"]["mismatch"] == 20);
  CHECK(parameter(back_report, "layer1.0.bn1.num_batches_tracked")["metrics"]["max_abs_diff"] ==
        1000);
}

TEST_CASE("parity convert: a .pth that PyTorch loads, weights_only and strict", "[e2e][weights]") {
  // MindSpore's names with a Momentum optimizer's state, to PyTorch's names
  // as a .pth: the optimizer state is dropped, the batch counters created, and
  // torchvision's ResNet-18 takes the file with load_state_dict(strict=True).
  TempDir dir;
  const auto ms = checkpoint(dir, "ms.safetensors", {"--style", "modelzoo", "--training-state"});
  const auto torch = checkpoint(dir, "torch.safetensors", {});
  const auto out = dir / "out.pth";
  const auto converted =
      run_process({PARITY_CLI, "convert", ms.string(), out.string(), "--like", torch.string()});
  INFO(converted.err);
  REQUIRE(converted.exit_code == 0);
  CHECK_THAT(converted.out, Catch::StartsWith("wrote 122 tensors to " + out.string()));
  CHECK_THAT(converted.out, Catch::Contains("dropped 67:\n  62 tensors (moments.conv1.weight ... "
                                            "moments.end_point.bias): optimizer state: MindSpore "
                                            "Momentum (or FTRL) moments\n"));
  const auto loaded =
      run_process({PARITY_PYTHON, "-c",
                   "import sys, torch, torchvision\n"
                   "state = torch.load(sys.argv[1], weights_only=True)\n"
                   "torchvision.models.resnet18().load_state_dict(state, strict=True)\n"
                   "print(len(state), type(state).__name__)\n",
                   out.string()});
  INFO(loaded.err);
  REQUIRE(loaded.exit_code == 0);
  CHECK(loaded.out == "122 OrderedDict\n");
  const json report = diff_json({out.string(), torch.string(), "--map", "identity"}, 1);
  CHECK(report["summary"]["counts"]["equal"] == 102);
  CHECK(report["summary"]["counts"]["mismatch"] == 20);  // the counters: 0, not 1000
}

TEST_CASE("parity convert: refusals name the problem, exit code 2", "[e2e][weights]") {
  TempDir dir;
  const auto torch = checkpoint(dir, "torch.safetensors", {});
  const auto other = checkpoint(dir, "other.safetensors", {"--arch", "resnet50"});
  const auto refused = [](const ProcessResult& result, const std::string& message) {
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(message));
  };
  refused(run_process({PARITY_CLI, "convert", torch.string(), (dir / "out.npy").string()}),
          "a .npy file holds one tensor, not 122");
  refused(run_process({PARITY_CLI, "convert", torch.string(), (dir / "out.txt").string()}),
          "unknown output format '.txt'");
  refused(run_process({PARITY_CLI, "convert", torch.string(), (dir / "out.safetensors").string(),
                       "--like", other.string()}),
          "the shapes differ");
  CHECK_FALSE(fs::exists(dir / "out.safetensors"));
}
