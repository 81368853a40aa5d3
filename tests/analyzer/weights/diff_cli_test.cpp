// `parity diff` end to end: real processes on ResNet-18 checkpoints written by
// PyTorch, in every report format, with findings planted by the peer.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path checkpoint(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  std::vector<std::string> command{PARITY_PYTHON, PARITY_RESNET_CHECKPOINTS, dir.path().string(),
                                   "--arch", "resnet18", "--name", name};
  command.insert(command.end(), args.begin(), args.end());
  const auto result = run_process(command);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return dir / name;
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
  CHECK_THAT(result.out, Catch::StartsWith("A: " + a.string()));
  CHECK_THAT(result.out, Catch::Contains("verdict: AGREE"));
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
  CHECK(parameter(report, "layer3.0.down_sample_layer.1.gamma")["b"] == "layer3.0.downsample.1.weight");
  CHECK(parameter(report, "end_point.bias")["b"] == "fc.bias");

  const auto text = parity_diff({ms.string(), torch.string()});
  CHECK(text.exit_code == 1);
  CHECK_THAT(text.out, Catch::Contains("verdict: DIFFER (1 findings)"));
  CHECK_THAT(text.out, Catch::Contains("mismatch        layer2.1.conv2.weight <-> layer2.1.conv2.weight  "
                                       "[128, 128, 3, 3] float32  max abs 0.5 at [0, 0, 0, 0]"));
}

TEST_CASE("parity diff: tolerances by dtype, --rtol/--atol and --tol globs", "[e2e][weights]") {
  TempDir dir;
  const auto a = checkpoint(dir, "a.safetensors", {"--perturb", "fc.bias=1e-4", "--dtype", "conv1.weight=float16"});
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
  const auto a = checkpoint(dir, "a.safetensors", {"--style", "mindspore", "--perturb", "fc.weight=1"});
  const auto b = checkpoint(dir, "b.safetensors", {});
  const auto csv = parity_diff({a.string(), b.string(), "--format", "csv"});
  CHECK(csv.exit_code == 1);
  std::istringstream lines(csv.out);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) ++rows;
  CHECK(rows == 2 + 102 + 20);  // summary comment, header, pairs, no-counterpart rows
  CHECK_THAT(csv.out, Catch::Contains("mismatch,fc.weight,fc.weight,\"[1000, 512]\",float32,1,\"[0, 0]\""));

  const auto junit = parity_diff({a.string(), b.string(), "--format", "junit", "-o", (dir / "r.xml").string()});
  CHECK(junit.exit_code == 1);
  CHECK(junit.out.empty());
  const std::string xml = read_file(dir / "r.xml");
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"parity diff\" tests=\"122\" failures=\"1\""));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"mismatch: fc.weight &lt;-&gt; fc.weight"));

  const auto md = parity_diff({a.string(), b.string(), "--format", "md"});
  CHECK_THAT(md.out, Catch::StartsWith("# Weight diff: DIFFER (1 findings)"));
  CHECK_THAT(md.out, Catch::Contains("| no counterpart | 20 |"));
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
  refused(parity_diff({good.string(), good.string(), "--tol", "fc.*=1e-3"}), "expected GLOB=RTOL,ATOL");
  refused(parity_diff({good.string(), good.string(), "--tol", "fc.*=x,1"}), "'x' is not a tolerance");
  refused(parity_diff({good.string(), good.string(), "--map", "nowhere.yaml"}), "neither a built-in name map");
  refused(parity_diff({good.string(), good.string(), "--format", "xml"}), "--format");
}

TEST_CASE("parity convert: PyTorch names to a MindSpore checkpoint and back", "[e2e][weights]") {
  TempDir dir;
  const auto torch = checkpoint(dir, "torch.safetensors", {});
  const auto ckpt = dir / "model_zoo.ckpt";
  const auto to_ms = run_process({PARITY_CLI, "convert", torch.string(), ckpt.string(), "--map", "torch-to-modelzoo"});
  INFO(to_ms.err);
  REQUIRE(to_ms.exit_code == 0);
  CHECK_THAT(to_ms.out, Catch::StartsWith("wrote 102 tensors to " + ckpt.string()));
  CHECK_THAT(to_ms.out, Catch::Contains("dropped 20:\n  bn1.num_batches_tracked: MindSpore's BatchNorm"));

  const json ms_report = diff_json({ckpt.string(), torch.string()}, 0);
  CHECK(ms_report["summary"]["format_a"] == "mindspore");
  CHECK(ms_report["summary"]["counts"]["equal"] == 102);
  CHECK(parameter(ms_report, "layer4.0.down_sample_layer.1.moving_variance")["b"] ==
        "layer4.0.downsample.1.running_var");

  // Back to PyTorch's names, paired against the original, as an .npz.
  const auto back = dir / "back.npz";
  const auto to_torch = run_process({PARITY_CLI, "convert", ckpt.string(), back.string(), "--like", torch.string()});
  INFO(to_torch.err);
  REQUIRE(to_torch.exit_code == 0);
  const json back_report = diff_json({back.string(), torch.string(), "--map", "identity"}, 1);
  CHECK(back_report["summary"]["counts"]["equal"] == 102);
  CHECK(back_report["summary"]["counts"]["only in B"] == 20);  // the batch counters stayed behind
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
  refused(run_process({PARITY_CLI, "convert", torch.string(), (dir / "out.safetensors").string(), "--like",
                       other.string()}),
          "the shapes differ");
  CHECK_FALSE(fs::exists(dir / "out.safetensors"));
}
