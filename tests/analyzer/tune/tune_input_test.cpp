// Loading a run's rank traces (written with profiler::TraceWriter) into the
// tuner's input, and the refusals of inputs that do not belong together.
#include "parity/analyzer/tune/tune_input.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "expect_error.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/trace_writer.hpp"
#include "temp_dir.hpp"
#include "tune_fixture.hpp"

using namespace parity::analyzer;
using parity::test::expect_error;

TEST_CASE("two ranks combine into one ready profile, cost samples and measured times", "[unit]") {
  TempDir dir;
  const tune_fixture::Run run;
  const auto paths = tune_fixture::write_run(dir / "run", run);
  // Given in any order: the ranks are sorted.
  const TuneInput input = load_tune_input({paths[1], paths[0]});
  CHECK(input.paths == std::vector<std::string>{paths[0].string(), paths[1].string()});
  CHECK(input.world_size == 2);
  CHECK(input.param_names == std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5"});
  CHECK(input.warm_up_step == 0);
  CHECK(input.steps == std::vector<std::int64_t>{1, 2, 3});
  // The later rank per parameter; step 0's slow gradients are left out.
  CHECK(input.profile.ready_ns ==
        std::vector<double>{6'200'000, 5'000'000, 4'100'000, 3'300'000, 2'000'000, 1'200'000});
  CHECK(input.profile.bytes ==
        std::vector<std::uint64_t>{4'000, 1'000'000, 2'000'000, 500'000, 3'000'000, 800'000});
  CHECK(input.traced_buckets == run.buckets);
  CHECK(input.traced_split == "index:[1,3,5]");  // no meta: the traced buckets
  // One sample per step and bucket, at the pure transfer time (the last rank's).
  REQUIRE(input.samples.size() == 9);
  for (const AllreduceSample& sample : input.samples)
    CHECK(sample.ns == double(run.cost(std::int64_t(sample.bytes))));
  // Buckets 2 and 1 end during backward; bucket 0 starts with the last
  // gradient and outlives backward's 100 us tail: neither busy nor idle.
  CHECK(input.busy_samples.size() == 6);
  for (const AllreduceSample& sample : input.busy_samples) CHECK(sample.bytes != 1'004'000);
  CHECK(input.idle_samples.empty());
  // It straddles: on rank 1 (the shortest, 150.4 us) it starts with the last
  // gradient, 100 us before backward ends, and ends 50.4 us after.
  REQUIRE(input.straddle_samples.size() == 3);
  for (const StraddleSample& sample : input.straddle_samples) {
    CHECK(sample.bytes == 1'004'000);
    CHECK(sample.during_ns == 100'000);
    CHECK(sample.after_ns == 50'400);
  }
  CHECK(input.profile.backward_end_ns == 6'200'000 + run.backward_tail);
  CHECK(input.allreduce_wait_ns == double(tune_fixture::expected_wait_ns(run)));
  CHECK(input.backward_tail_ns == run.backward_tail);
  CHECK(input.step_ns > 0);
  CHECK(input.notes.empty());
}

TEST_CASE("the calibration sweep and AllReduces after backward are idle costs", "[unit]") {
  TempDir dir;
  tune_fixture::Run run;
  run.backward_tail = 0;  // bucket 0 starts as backward ends: idle
  run.calibration_bytes = {256, 1'024, 4'096};
  std::vector<std::filesystem::path> paths = tune_fixture::write_run(dir / "run", run);
  TuneInput input = load_tune_input(paths);
  CHECK(input.samples.size() == 9);  // the sweep is not a bucket
  CHECK(input.busy_samples.size() == 6);
  CHECK(input.straddle_samples.empty());
  REQUIRE(input.idle_samples.size() == 6);
  std::vector<std::uint64_t> idle_bytes;
  for (const AllreduceSample& sample : input.idle_samples) {
    idle_bytes.push_back(sample.bytes);
    const auto bytes = std::int64_t(sample.bytes);
    CHECK(sample.ns == double(bytes == 1'004'000 ? run.cost(bytes) : run.calibration_cost(bytes)));
  }
  CHECK(idle_bytes ==
        std::vector<std::uint64_t>{1'004'000, 1'004'000, 1'004'000, 256, 1'024, 4'096});

  // Another run's AllReduces join the cost samples; its ready times do not.
  tune_fixture::Run other;
  other.buckets = {{0, 4}, {5, 5}};
  other.ready = {{9'000'000, 8'000'000, 7'000'000, 6'000'000, 5'000'000, 4'000'000},
                 {9'000'000, 8'000'000, 7'000'000, 6'000'000, 5'000'000, 4'000'000}};
  const auto other_paths = tune_fixture::write_run(dir / "other", other);
  const std::vector<double> ready = input.profile.ready_ns;
  add_cost_runs(input, {other_paths[0], other_paths[1], paths[0], paths[1]});
  CHECK(input.profile.ready_ns == ready);
  CHECK(input.samples.size() == 9 + 6 + 9);  // 3 steps x 2 buckets, then the run itself again
  bool other_sizes = false;
  for (const AllreduceSample& sample : input.busy_samples) other_sizes |= sample.bytes == 800'000;
  CHECK(other_sizes);
  REQUIRE(input.notes.size() == 2);
  CHECK_THAT(input.notes[0],
             Catch::Contains("AllReduce costs also from") && Catch::Contains("split index:[4,5]"));

  tune_fixture::Run smaller;
  smaller.param_bytes.pop_back();
  smaller.ready = {{6, 5, 4, 3, 2}, {6, 5, 4, 3, 2}};
  smaller.buckets = {{0, 4}};
  expect_error([&] { add_cost_runs(input, tune_fixture::write_run(dir / "smaller", smaller)); },
               "this run's model has 5 parameters, the tuned run's 6", {"--costs-from"});
}

TEST_CASE("the tuner notes a split in meta that the traced buckets contradict", "[unit]") {
  TempDir dir;
  tune_fixture::Run run;
  run.split_meta = "index:[2,5]";
  run.allreduce_wait = false;
  const TuneInput input = load_tune_input(tune_fixture::write_run(dir / "run", run));
  CHECK(input.traced_split == "index:[2,5]");
  CHECK(input.traced_buckets == run.buckets);
  CHECK_FALSE(input.allreduce_wait_ns);
  REQUIRE(input.notes.size() == 2);
  CHECK_THAT(input.notes[0], Catch::Contains("no allreduce_wait phase"));
  CHECK_THAT(input.notes[1], Catch::Contains("the traced AllReduces used index:[1,3,5]"));
}

TEST_CASE("one rank of several is read with a note; two steps keep the first", "[unit]") {
  TempDir dir;
  tune_fixture::Run run;
  run.steps = 2;
  const auto paths = tune_fixture::write_run(dir / "run", run);
  const TuneInput input = load_tune_input({paths[1]});
  CHECK_FALSE(input.warm_up_step);
  CHECK(input.steps == std::vector<std::int64_t>{0, 1});
  // The median of the warm-up step's and step 1's ready times.
  CHECK(input.profile.ready_ns[0] == (tune_fixture::kWarmUpFactor + 1) * 6'200'000 / 2.0);
  REQUIRE(input.notes.size() == 1);
  CHECK_THAT(input.notes[0], Catch::Contains("only 1 of the 2 ranks"));
}

TEST_CASE("traces that do not belong together are refused", "[unit]") {
  TempDir dir;
  const tune_fixture::Run run;
  const auto paths = tune_fixture::write_run(dir / "run", run);
  expect_error(
      [&] {
        load_tune_input({paths[0], paths[0]});
      },
      "two traces are rank 0", {paths[0].string()});

  tune_fixture::Run smaller = run;
  smaller.param_bytes.pop_back();
  for (auto& ready : smaller.ready) ready.pop_back();
  smaller.buckets.back().last = 4;
  const auto other = tune_fixture::write_run(dir / "smaller", smaller);
  expect_error(
      [&] {
        load_tune_input({paths[0], other[1]});
      },
      "different parameter counts", {paths[0].string(), other[1].string()});

  tune_fixture::Run wider = run;
  wider.world_size = 4;
  const auto four = tune_fixture::write_run(dir / "wider", wider);
  expect_error(
      [&] {
        load_tune_input({paths[0], four[1]});
      },
      "different world sizes", {paths[0].string()});
  expect_error([] { load_tune_input({}); }, "no trace given", {"tune-allreduce"});
}

TEST_CASE("a file that is not a data-parallel trace is refused with how to record one", "[unit]") {
  TempDir dir;
  const auto text = dir / "notes.db";
  std::ofstream(text) << "not a database at all, just some text that is long enough";
  CHECK_THROWS_AS(load_tune_input({text}), parity::Error);

  // A trace of one process: parameters, steps, no gradient-ready times.
  const auto single = dir / "single.db";
  {
    parity::profiler::TraceWriter writer(single);
    writer.begin();
    writer.add(parity::profiler::ParameterRow{0, "fc.weight", "10,10", "float32", 400});
    writer.commit();
    writer.finalize();
  }
  expect_error([&] { load_tune_input({single}); }, "no gradient-ready times", single);
  CHECK_THROWS_WITH(load_tune_input({single}), Catch::Contains("mpirun -np 2 parity-train train"));

  // Gradient-ready times but no AllReduce.
  const auto local = dir / "local.db";
  {
    parity::profiler::TraceWriter writer(local);
    writer.begin();
    writer.add(parity::profiler::ParameterRow{0, "fc.weight", "10,10", "float32", 400});
    writer.add(parity::profiler::GradReadyRow{0, 0, 1'000, 400, 1});
    writer.commit();
    writer.finalize();
  }
  expect_error([&] { load_tune_input({local}); }, "no AllReduce", local);
}
