// `parity loss-compare` end to end on real parity-train runs (CPU, one
// thread, fixed seed: deterministic): the same config twice matches, a
// different learning rate parts at step 2 with the first loss matching, a
// different seed differs at the first loss; the run's log and its trace
// agree; bad input exits 2 naming the file.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

struct TrainedRun {
  fs::path log, trace;
};

// Six steps of a small ResNet-18 on synthetic data, a loss line every step.
TrainedRun train(const TempDir& dir, const std::string& name, const std::string& lr,
                 const std::string& seed) {
  const fs::path config = dir / (name + ".yaml");
  std::ofstream(config) << "net_name: resnet18\nclass_num: 4\ndataset: synthetic\n"
                        << "synthetic_size: 48\ntrain_image_size: 32\neval_image_size: 32\n"
                        << "batch_size: 8\nepoch_size: 1\nlr_max: " << lr << "\nseed: " << seed
                        << "\nnum_workers: 1\nprefetch: 2\nthreads: 1\nsave_checkpoint: false\n"
                        << "checkpoint_path: " << (dir / "checkpoints").string() << "\n";
  TrainedRun run{dir / (name + ".log"), dir / (name + ".db")};
  const ProcessResult result = run_process({PARITY_TRAIN, "train", "--config", config.string(),
                                            "--log-every", "1", "--trace", run.trace.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::ofstream(run.log) << result.out;
  return run;
}

nlohmann::json loss_compare(std::vector<std::string> args, int expected_exit) {
  args.insert(args.begin(), {PARITY_CLI, "loss-compare", "--format", "json"});
  const ProcessResult result = run_process(args);
  INFO(result.err);
  REQUIRE(result.exit_code == expected_exit);
  return nlohmann::json::parse(result.out);
}

// The runs every section reads, trained once (Catch2 runs the test case
// again for each section).
struct Runs {
  TempDir dir;
  TrainedRun base = train(dir, "base", "0.01", "3");
  TrainedRun again = train(dir, "again", "0.01", "3");
  TrainedRun faster = train(dir, "faster", "0.05", "3");
  TrainedRun other = train(dir, "other", "0.01", "4");
};

}  // namespace

TEST_CASE("loss-compare on real parity-train runs", "[e2e]") {
  static const Runs runs;
  const TempDir& dir = runs.dir;
  const TrainedRun &base = runs.base, &again = runs.again, &faster = runs.faster;

  SECTION("the same config twice matches, log against log") {
    const auto report = loss_compare({base.log.string(), again.log.string()}, 0);
    CHECK(report["verdict"] == "match");
    CHECK(report["counts"]["common"] == 6);
  }
  SECTION("the run's trace and its log hold the same curve") {
    const auto report = loss_compare({base.trace.string(), base.log.string()}, 0);
    CHECK(report["a"]["kind"] == "Parity trace");
    CHECK(report["counts"]["common"] == 6);
  }
  SECTION("a larger learning rate parts at step 2, after a first loss that matches") {
    const auto report = loss_compare({base.log.string(), faster.trace.string()}, 1);
    CHECK(report["verdict"] == "parted");
    CHECK(report["first_parted"]["step"] == 2);
    CHECK(report["first_loss_differs"] == false);
  }
  SECTION("another seed differs at the first loss") {
    const auto report = loss_compare({base.log.string(), runs.other.log.string()}, 1);
    CHECK(report["first_parted"]["step"] == 1);
    CHECK(report["first_loss_differs"] == true);
  }
  SECTION("a truncated trace exits 2, naming it") {
    const fs::path cut = dir / "cut.db";
    fs::copy_file(base.trace, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, 8192);
    const ProcessResult result =
        run_process({PARITY_CLI, "loss-compare", cut.string(), base.log.string()});
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(cut.string()));
  }
  SECTION("text, md and html say the same verdict; html draws the chart") {
    for (const std::string format : {"text", "md", "html"}) {
      const ProcessResult result = run_process(
          {PARITY_CLI, "loss-compare", base.log.string(), faster.log.string(), "--format", format});
      CHECK(result.exit_code == 1);
      CHECK_THAT(result.out, Catch::Contains("PARTED at step 2"));
      if (format == "html") CHECK_THAT(result.out, Catch::Contains("<polyline"));
    }
  }
}

TEST_CASE("loss-compare refuses bad input with exit code 2, naming the file", "[e2e]") {
  TempDir dir;
  const fs::path good = dir / "good.log", none = dir / "none.log";
  std::ofstream(good) << "epoch: 1 step: 1, loss is 2.3\n";
  std::ofstream(none) << "epoch time: 10 ms, per step time: 1 ms\n";
  const auto refused = [](std::vector<std::string> args, const std::string& message) {
    args.insert(args.begin(), {PARITY_CLI, "loss-compare"});
    const ProcessResult result = run_process(args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(message));
    CHECK_THAT(result.err, Catch::Contains("hint:"));
  };
  refused({good.string(), none.string()}, "no loss line found (" + none.string() + ")");
  refused({good.string(), good.string(), "--pattern-b", "step {step}"}, "has no {loss}");
  refused({good.string(), good.string(), "--pattern-b", "Iter {step} {loss}"},
          good.string() + ": lines 1-1");
  refused({good.string(), (dir / "missing.log").string()}, "missing.log");
}
