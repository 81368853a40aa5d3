// The tuner's predictions on a run whose schedule the model reproduces: the
// current split's prediction equals the measured wait, the optimum beats
// every other split, and the projection to larger clusters.
#include "parity/analyzer/tune/tune_analysis.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "expect_error.hpp"
#include "temp_dir.hpp"
#include "tune_fixture.hpp"

using namespace parity::analyzer;

namespace {

TuneInput fixture_input(const TempDir& dir, const tune_fixture::Run& run = {}) {
  return load_tune_input(tune_fixture::write_run(dir / "run", run));
}

}  // namespace

TEST_CASE("the current split's prediction reproduces the measured wait", "[unit]") {
  TempDir dir;
  const tune_fixture::Run run;
  const TuneResult result = tune_allreduce(fixture_input(dir, run), {});
  CHECK(result.ranks == 2);
  CHECK(result.cost.link() == Link::kMeasured);
  // The fixture's cost is 50 us + 0.1 ns/B: a ring at 2 ranks of alpha 25 us.
  CHECK(result.cost.params().alpha_ns == Approx(25'000));
  CHECK(result.cost.params().beta_ns_per_byte == Approx(0.1));
  const double wait = double(tune_fixture::expected_wait_ns(run));
  REQUIRE(wait > 0);
  CHECK(result.current_wait_at_traced_ns == Approx(wait));
  CHECK(*result.prediction_error_percent() == Approx(0).margin(1e-9));
  const SplitPrediction& current = result.split("current");
  CHECK(current.schedule.exposed_ns == Approx(double(tune_fixture::expected_exposed_ns(run))));
  CHECK(current.wait_ns == Approx(wait));
  CHECK(current.step_ns == Approx(result.input.step_ns));
}

TEST_CASE("a bucket across backward's end joins the busy table, priced by the idle one", "[unit]") {
  TempDir dir;
  tune_fixture::Run run;  // bucket 0 (1.004 MB) outlives backward by 50.4 us of 150.4
  run.calibration_bytes = {256, 4'000'000};
  run.calibration_cost = run.cost;  // the same link: idle(1.004 MB) is 150.4 us
  const TuneResult result = tune_allreduce(fixture_input(dir, run), {});
  REQUIRE(result.cost.busy_table());
  const auto& entries = result.cost.busy_table()->entries();
  const auto straddler = std::find_if(entries.begin(), entries.end(),
                                      [](const auto& entry) { return entry.bytes == 1'004'000; });
  REQUIRE(straddler != entries.end());
  CHECK(straddler->samples == 3);
  CHECK(straddler->ns == Approx(double(run.cost(1'004'000))));
  // The model then reproduces the run.
  CHECK(result.current_wait_at_traced_ns == Approx(double(tune_fixture::expected_wait_ns(run))));
}

TEST_CASE("the optimum is no worse than any other split, and each step time follows", "[unit]") {
  TempDir dir;
  const TuneResult result = tune_allreduce(fixture_input(dir), {});
  std::vector<std::string> names;
  for (const SplitPrediction& prediction : result.splits) names.push_back(prediction.name);
  // Six parameters: no seeds' split (it needs 161).
  CHECK(names == std::vector<std::string>{"current", "none", "one", "ddp", "mg-wfbp", "optimum"});
  const SplitPrediction& optimum = result.split("optimum");
  const SplitPrediction& current = result.split("current");
  for (const SplitPrediction& prediction : result.splits) {
    INFO(prediction.name);
    CHECK(optimum.schedule.exposed_ns <= prediction.schedule.exposed_ns + 1e-6);
    const double tail = double(tune_fixture::Run{}.backward_tail);
    CHECK(prediction.wait_ns == Approx(std::max(0.0, prediction.schedule.exposed_ns - tail)));
    CHECK(prediction.step_ns - current.step_ns == Approx(prediction.wait_ns - current.wait_ns));
  }
  CHECK(result.split("none").schedule.buckets.size() == 6);
  CHECK(result.split("one").split == "one");
  CHECK(optimum.split == parity::profiler::end_index_text(optimum.buckets()));
  const std::vector<double> mib = result.split("one").bucket_mib();
  REQUIRE(mib.size() == 1);
  CHECK(mib[0] == Approx(7'304'000.0 / (1 << 20)));
}

TEST_CASE("the seeds' split is compared on a model of 161 parameters", "[unit]") {
  TempDir dir;
  tune_fixture::Run run;
  run.param_bytes.assign(161, 100'000);
  run.ready.assign(2, {});
  for (auto& ready : run.ready)
    for (std::int64_t p = 161; p-- > 0;)
      ready.insert(ready.begin(), 1'000'000 + (160 - p) * 10'000);
  run.buckets = {{0, 85}, {86, 160}};
  run.split_meta = "index:[85,160]";
  run.steps = 2;
  const TuneResult result = tune_allreduce(fixture_input(dir, run), {});
  const SplitPrediction& seeds = result.split("seeds");
  CHECK(seeds.split == "index:[85,160]");
  CHECK(seeds.schedule.exposed_ns == Approx(result.split("current").schedule.exposed_ns));
}

TEST_CASE("predictions at another rank count and with a preset link", "[unit]") {
  TempDir dir;
  const TuneInput input = fixture_input(dir);
  TuneOptions options;
  options.ranks = 64;
  const TuneResult wide = tune_allreduce(input, options);
  CHECK(wide.ranks == 64);
  const TuneResult traced = tune_allreduce(input, {});
  CHECK(wide.split("one").schedule.exposed_ns > traced.split("one").schedule.exposed_ns);
  // The measured check stays at the traced world size.
  CHECK(wide.current_wait_at_traced_ns == Approx(traced.current_wait_at_traced_ns));

  options.link = Link::kEthernet;
  options.ranks.reset();
  options.simulate = true;
  const TuneResult ethernet = tune_allreduce(input, options);
  CHECK_FALSE(ethernet.cost.table());
  REQUIRE(ethernet.projection.size() == 16);  // 8..1024 ranks, ring and tree
  CHECK(ethernet.projection.front().ranks == 8);
  CHECK(ethernet.projection.back().ranks == 1024);
  CHECK(ethernet.projection[1].algorithm == AllreduceAlgorithm::kTree);
  for (const ScalePoint& point : ethernet.projection) CHECK(point.gain_ns() >= -1e-6);

  options.ranks = 0;
  parity::test::expect_error([&] { tune_allreduce(input, options); }, "--ranks must be at least 1",
                             {"--ranks"});
}
