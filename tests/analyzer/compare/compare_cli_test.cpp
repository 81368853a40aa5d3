// `parity compare` and `parity nan-scan` end to end: real processes on dumps
// written by DumpWriter and by NumPy; exit codes 0, 1 and 2; errors that
// name the file and line at fault.
#include <catch2/catch.hpp>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dump_fixture.hpp"
#include "process.hpp"
#include "refusal.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

ProcessResult parity_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_CLI);
  return run_process(args);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

fixture::Plant scale(std::string phase, std::string name, std::string role, float factor) {
  return {std::move(phase), std::move(name), std::move(role), [factor](std::vector<float>& v) {
            for (float& x : v) x *= factor;
          }};
}

}  // namespace

TEST_CASE("parity compare: exit code 0 when every pair matches, 1 on a mismatch",
          "[e2e][compare]") {
  TempDir dir;
  const auto a = fixture::write_dump(dir / "a", {});
  const auto b = fixture::write_dump(dir / "b", {});
  const auto same = parity_cli({"compare", a.string(), b.string()});
  INFO(same.err);
  CHECK(same.exit_code == 0);
  CHECK(first_line(same.out) == "first mismatch: forward: none; backward: none; update: none");
  CHECK_THAT(same.out, Catch::Contains("summary: 37 pairs compared, 37 match, 0 mismatch"));

  fixture::DumpSpec planted;
  planted.plants = {scale("forward", "layer1.0.conv2", "output", 1.001f),
                    scale("backward", "layer1.0.bn1", "grad_output", 0.999f)};
  const auto c = fixture::write_dump(dir / "c", planted);
  const auto differ = parity_cli({"compare", c.string(), b.string(), "--threads", "2"});
  INFO(differ.err);
  CHECK(differ.exit_code == 1);
  CHECK_THAT(first_line(differ.out),
             Catch::StartsWith(
                 "first mismatch: forward: step 0 forward layer1.0.conv2 (output): allclose: "));
  CHECK_THAT(first_line(differ.out),
             Catch::Contains("; backward: step 0 backward layer1.0.bn1 (grad_output): allclose: "));

  // Loose enough tolerances for both: 0.
  const auto loose =
      parity_cli({"compare", c.string(), b.string(), "--rtol", "2e-3", "--atol", "0"});
  CHECK(loose.exit_code == 0);
  const auto glob = parity_cli({"compare", c.string(), b.string(), "--tol", "layer1.0.*=2e-3,0"});
  CHECK(glob.exit_code == 0);

  // Every format, to a file.
  for (const std::string format : {"json", "csv", "md", "junit"}) {
    const fs::path out = dir / ("report." + format);
    const auto written =
        parity_cli({"compare", c.string(), b.string(), "--format", format, "-o", out.string()});
    CHECK(written.exit_code == 1);
    CHECK(written.out.empty());
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    CHECK_THAT(text.str(), Catch::Contains("layer1.0.conv2"));
  }
}

TEST_CASE("parity compare: settings that differ are listed, and never fail a comparison",
          "[e2e][compare]") {
  TempDir dir;
  fixture::DumpSpec ours, theirs;
  ours.settings.config = {{"lr", "0.1"}, {"momentum", "0.9"}, {"nesterov", "false"}};
  ours.settings.versions = {{"parity-train", "0.1.0"}};
  ours.settings.environment = {{"OMP_NUM_THREADS", "1"}};
  theirs.settings.config = {{"lr", "0.01"}, {"momentum", "0.9"}, {"nesterov", "false"}};
  theirs.settings.versions = {{"torch", "1.13.0"}};
  theirs.settings.environment = {{"OMP_NUM_THREADS", "1"}, {"CUBLAS_WORKSPACE_CONFIG", ":4096:8"}};
  const auto a = fixture::write_dump(dir / "a", ours);
  const auto b = fixture::write_dump(dir / "b", theirs);

  const auto text = parity_cli({"compare", a.string(), b.string()});
  INFO(text.err);
  CHECK(text.exit_code == 0);  // the values match: settings are a lead, not a failure
  CHECK(text.out.find("settings that differ: config: lr; versions: 2; environment: "
                      "CUBLAS_WORKSPACE_CONFIG") != std::string::npos);
  CHECK(text.out.find("momentum") == std::string::npos);  // equal on both sides: not listed

  const auto json = parity_cli({"compare", a.string(), b.string(), "--format", "json"});
  const auto settings = nlohmann::json::parse(json.out)["settings"];
  REQUIRE(settings.size() == 4);
  CHECK(settings[0] == nlohmann::json{{"section", "config"}, {"setting", "lr"}, {"a", "0.1"},
                                      {"b", "0.01"}});
  CHECK(settings[1]["setting"] == "parity-train");
  CHECK(settings[1]["b"].is_null());
  CHECK(settings[2]["setting"] == "torch");
  CHECK(settings[2]["a"].is_null());
  CHECK(settings[3] == nlohmann::json{{"section", "environment"},
                                      {"setting", "CUBLAS_WORKSPACE_CONFIG"},
                                      {"a", nullptr},
                                      {"b", ":4096:8"}});

  const auto same = parity_cli({"compare", a.string(), a.string()});
  CHECK(same.out.find("settings that differ") == std::string::npos);
}

TEST_CASE("parity compare: plain .npy directories written by NumPy", "[e2e][compare]") {
  TempDir dir;
  fixture::run_numpy(R"(
d = sys.argv[1]
rng = np.random.default_rng(1)
os.makedirs(os.path.join(d, "ours")); os.makedirs(os.path.join(d, "theirs"))
x = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
h = np.maximum(x, 0)
np.save(os.path.join(d, "ours", "0_conv.npy"), x)
np.save(os.path.join(d, "ours", "1_relu.npy"), h)
np.save(os.path.join(d, "theirs", "conv_out.npy"), x.astype(np.float64))
bad = h.copy(); bad[1, 2, 2, 0] += 0.5
np.save(os.path.join(d, "theirs", "relu_out.npy"), bad)
)",
                     dir.path());
  const auto result = parity_cli(
      {"compare", (dir / "ours").string(), (dir / "theirs").string(), "--format", "json"});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  const auto json = nlohmann::json::parse(result.out);
  CHECK(json["summary"]["pairing"] == "by name, then by order and shape, map identity");
  CHECK(json["records"][0]["status"] == "match");
  CHECK(json["records"][0]["b"]["name"] == "conv_out");
  CHECK(json["records"][0]["paired_by"] == "order and shape");
  CHECK(json["records"][0]["metrics"]["max_ulp_diff"] == 0);
  CHECK(json["first_mismatch"]["forward"]["record"] == "1_relu <-> relu_out");
  CHECK(json["first_mismatch"]["forward"]["a"]["name"] == "1_relu");
  CHECK(json["records"][1]["metrics"]["max_abs_index"] == nlohmann::json::array({1, 2, 2, 0}));
}

TEST_CASE("parity compare: could not run, exit code 2, the fault named", "[e2e][compare]") {
  TempDir dir;
  const auto a = fixture::write_dump(dir / "a", {});
  const auto b = fixture::write_dump(dir / "b", {});
  check_refused(parity_cli({"compare", (dir / "missing").string(), b.string()}),
                "no such directory");
  fs::create_directories(dir / "empty");
  check_refused(parity_cli({"compare", a.string(), (dir / "empty").string()}),
                "neither a manifest.jsonl nor any .npy file");
  check_refused(parity_cli({"compare", a.string(), b.string(), "--tol", "x"}),
                "expected GLOB=RTOL,ATOL");
  check_refused(parity_cli({"compare", a.string(), b.string(), "--format", "xml"}), "--format");
  check_refused(parity_cli({"compare", a.string(), b.string(), "--map", "nowhere.yaml"}),
                "neither a built-in name map");

  // A corrupt manifest line: the error names the file and the line.
  const std::string good_line = fixture::manifest_line(b, 7);
  fixture::replace_manifest_line(b, 7, good_line.substr(0, good_line.size() / 2));
  check_refused(parity_cli({"compare", a.string(), b.string()}),
                (b / "manifest.jsonl").string() + ":7");
  fixture::replace_manifest_line(b, 7, good_line);

  // A missing .npy file.
  const std::string file = nlohmann::json::parse(fixture::manifest_line(a, 5))["file"];
  fs::rename(a / file, dir / "moved.npy");
  check_refused(parity_cli({"compare", a.string(), b.string()}), (a / file).string());
  fs::rename(dir / "moved.npy", a / file);

  // An .npy whose shape disagrees with the manifest.
  nlohmann::json line = nlohmann::json::parse(fixture::manifest_line(a, 5));
  const auto shape = line["shape"];
  line["shape"] = {2, 8, 16, 4};
  fixture::replace_manifest_line(a, 5, line.dump());
  fixture::replace_manifest_line(b, 5, line.dump());
  check_refused(parity_cli({"compare", a.string(), b.string()}),
                "the manifest says float32 [2, 8, 16, 4]");
}

TEST_CASE("parity compare: a structural divergence is 1, a phase one side did not dump a warning "
          "(exit 0), nothing paired is 1",
          "[e2e][compare]") {
  TempDir dir;
  fixture::DumpSpec a_spec, b_spec;
  a_spec.records.pop_back();
  const auto a = fixture::write_dump(dir / "a", a_spec);
  const auto b = fixture::write_dump(dir / "b", b_spec);
  const auto result = parity_cli({"compare", a.string(), b.string()});
  CHECK(result.exit_code == 1);  // every pair matches, and A lacks a record B ran
  CHECK_THAT(result.out, Catch::Contains("update: structure: A has no record for step 0 update "
                                         "fc.bias param_after"));

  fixture::DumpSpec forward_only;
  std::erase_if(forward_only.records, [](const auto& r) { return r.phase != "forward"; });
  const auto f = fixture::write_dump(dir / "f", forward_only);
  const auto partial = parity_cli({"compare", f.string(), b.string()});
  CHECK(partial.exit_code == 0);
  CHECK_THAT(partial.out, Catch::Contains("records have no counterpart"));

  fixture::DumpSpec other;
  for (auto& r : other.records) r.name = "other." + r.name;
  const auto c = fixture::write_dump(dir / "c", other);
  const auto nothing = parity_cli({"compare", c.string(), b.string()});
  CHECK(nothing.exit_code == 1);
  CHECK_THAT(nothing.out, Catch::Contains("summary: 0 pairs compared"));
}

TEST_CASE("parity nan-scan: exit code 0 clean, 1 found, 2 could not run", "[e2e][nan-scan]") {
  TempDir dir;
  const auto clean = fixture::write_dump(dir / "clean", {});
  const auto ok = parity_cli({"nan-scan", clean.string()});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::StartsWith("no NaN or Inf: scanned 37 records"));

  fixture::DumpSpec spec;
  spec.plants = {{"backward", "avgpool", "grad_output",
                  [](std::vector<float>& v) { v[9] = std::numeric_limits<float>::quiet_NaN(); }}};
  const auto bad = fixture::write_dump(dir / "bad", spec);
  const auto found = parity_cli({"nan-scan", bad.string()});
  CHECK(found.exit_code == 1);
  CHECK(
      first_line(found.out) ==
      "first NaN/Inf: step 0 backward avgpool (grad_output): 1 NaN, 0 Inf, first at [1, 1, 0, 0]");
  CHECK_THAT(
      found.out,
      Catch::Contains(
          "its input side was clean (step 0 backward fc.bias (grad), executed just before it"));
  const auto json = parity_cli(
      {"nan-scan", bad.string(), "--format", "json", "-o", (dir / "scan.json").string()});
  CHECK(json.exit_code == 1);
  std::ifstream in(dir / "scan.json");
  CHECK(nlohmann::json::parse(in)["first"]["op"] == "avg_pool");

  check_refused(parity_cli({"nan-scan", (dir / "nowhere").string()}), "no such directory");
  fixture::replace_manifest_line(bad, 3, "{\"index\": 1,");
  check_refused(parity_cli({"nan-scan", bad.string()}), (bad / "manifest.jsonl").string() + ":3");
  check_refused(parity_cli({"nan-scan", bad.string(), "--format", "csv"}), "--format");
}

TEST_CASE("parity: the unknown-verb hint lists compare and nan-scan", "[e2e][compare]") {
  const auto result = parity_cli({"comapre"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("compare, nan-scan"));
}
