// End-to-end: the `parity tune-allreduce` binary on a two-rank run, its JSON
// fields and its refusals (exit code 2).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "refusal.hpp"
#include "temp_dir.hpp"
#include "tune_fixture.hpp"

using nlohmann::json;

namespace {

ProcessResult parity_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_CLI);
  return run_process(args);
}

}  // namespace

TEST_CASE("parity tune-allreduce prints the optimum and its predictions as JSON", "[e2e]") {
  TempDir dir;
  tune_fixture::Run run;
  run.split_meta = "index:[1,3,5]";
  const auto paths = tune_fixture::write_run(dir / "run", run);
  const auto result = parity_cli(
      {"tune-allreduce", paths[0].string(), paths[1].string(), "--format", "json", "--simulate"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const json report = json::parse(result.out);
  CHECK(report["world_size"] == 2);
  CHECK(report["ranks"] == 2);
  CHECK(report["parameters"] == 6);
  CHECK(report["warm_up_step"] == 0);
  CHECK(report["link"]["name"] == "measured");
  CHECK(report["link"]["cost_table"].size() == 3);
  CHECK(report["measured"]["split"] == "index:[1,3,5]");
  CHECK(report["measured"]["allreduce_wait_ns"] == double(tune_fixture::expected_wait_ns(run)));
  CHECK(report["measured"]["backward_tail_ns"] == double(run.backward_tail));
  CHECK(report["measured"]["error_percent"].get<double>() == Approx(0).margin(1e-6));
  REQUIRE(report["splits"].size() == 6);
  const json& optimum = report["optimum"];
  CHECK(optimum["name"] == "optimum");
  CHECK(optimum["set"].get<std::string>().rfind("allreduce_split=index:[", 0) == 0);
  CHECK(optimum["split_points"].get<std::string>().rfind("split:[", 0) == 0);
  CHECK(optimum["bucket_mib"].size() == optimum["buckets"]);
  for (const json& split : report["splits"])
    CHECK(optimum["exposed_ns"].get<double>() <= split["exposed_ns"].get<double>() + 1e-6);
  CHECK(report["projection"].size() == 16);
  CHECK(report["gradients"].size() == 6);
  // One run with identical steps cannot measure backward's slowdown: not used, and said so.
  CHECK(report["objective"] == "exposed");
  CHECK(report["contention"]["used"] == false);
  CHECK(report["contention"]["fitted_ns_per_byte"].is_null());
  CHECK(report["contention"]["backward_ns_lost_per_byte"] == 0);
  bool noted = false;
  for (const json& note : report["notes"])
    noted = noted || note.get<std::string>().find("slow backward down") != std::string::npos;
  CHECK(noted);
  for (const json& split : report["splits"]) CHECK(split["backward_ns"].get<double>() > 0);

  const auto step = parity_cli({"tune-allreduce", paths[0].string(), paths[1].string(), "--format",
                                "json", "--objective", "step"});
  REQUIRE(step.exit_code == 0);
  const json by_step = json::parse(step.out);
  CHECK(by_step["objective"] == "step");
  for (const json& split : by_step["splits"])
    CHECK(by_step["optimum"]["step_ns"].get<double>() <= split["step_ns"].get<double>() + 1e-6);

  const auto text = parity_cli({"tune-allreduce", paths[0].string(), paths[1].string()});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("--set allreduce_split=index:["));
  CHECK_THAT(text.out, Catch::Contains("all_reduce_fusion_config=["));
  CHECK_THAT(text.out, Catch::Contains("MG-WFBP greedy merge"));
  CHECK_THAT(text.out, Catch::Contains("0.0%)"));  // the prediction error
}

TEST_CASE("parity tune-allreduce refuses bad input with exit code 2", "[e2e]") {
  TempDir dir;
  const auto paths = tune_fixture::write_run(dir / "run", tune_fixture::Run{});
  const auto text = dir / "notes.db";
  std::ofstream(text) << "not a database at all, just some text that is long enough";
  check_refused(parity_cli({"tune-allreduce", text.string()}), text.string());
  check_refused(parity_cli({"tune-allreduce", paths[0].string(), paths[0].string()}),
                "two traces are rank 0");
  check_refused(parity_cli({"tune-allreduce", paths[0].string(), "--ranks", "0"}),
                "--ranks must be at least 1");
  check_refused(parity_cli({"tune-allreduce", paths[0].string(), "--link", "carrier-pigeon"}),
                "unknown link 'carrier-pigeon'");
  check_refused(parity_cli({"tune-allreduce", (dir / "missing.db").string()}), "missing.db");
  check_refused(parity_cli({"tune-allreduce", paths[0].string(), "--objective", "fastest"}),
                "--objective");
  check_refused(parity_cli({"tune-allreduce", paths[0].string(), "--predict", "index:[2,9]"}),
                "--predict index:[2,9]");
  check_refused(parity_cli({"tune-allreduce", paths[0].string(), "--predict", "[1,3]"}),
                "--predict [1,3]");
}

TEST_CASE("parity tune-allreduce --predict adds the splits asked for", "[e2e]") {
  TempDir dir;
  tune_fixture::Run run;
  run.split_meta = "index:[1,3,5]";
  const auto paths = tune_fixture::write_run(dir / "run", run);
  const auto result =
      parity_cli({"tune-allreduce", paths[0].string(), paths[1].string(), "--format", "json",
                  "--predict", "index:[1,3,5]", "--predict", "one", "--predict", "mb:1"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const json report = json::parse(result.out);
  std::map<std::string, json> by_name;
  std::vector<json> asked;
  for (const json& split : report["splits"]) {
    if (split["name"] == "asked")
      asked.push_back(split);
    else
      by_name[split["name"]] = split;
  }
  REQUIRE(asked.size() == 3);
  CHECK(asked[0]["split"] == "index:[1,3,5]");
  CHECK(asked[2]["split"] == "mb:1");
  // The same buckets predict the same: the traced split, and one bucket.
  for (const auto& [prediction, same] :
       {std::pair{asked[0], by_name["current"]}, std::pair{asked[1], by_name["one"]}}) {
    CHECK(prediction["buckets"] == same["buckets"]);
    CHECK(prediction["wait_ns"].get<double>() == Approx(same["wait_ns"].get<double>()));
    CHECK(prediction["step_ns"].get<double>() == Approx(same["step_ns"].get<double>()));
  }

  const auto text = parity_cli(
      {"tune-allreduce", paths[0].string(), paths[1].string(), "--predict", "index:[2,5]"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("asked (index:[2,5])"));
}
