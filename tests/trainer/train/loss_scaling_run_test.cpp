// Loss scaling in real `parity-train` runs (CPU backend, float32; the
// dynamic scale in float64 too, on the reference backend): planted
// overflows (--plant-overflow) must be skipped without touching the weights
// or the momentum, move a dynamic scale exactly as MindSpore's
// DynamicLossScaleUpdateCell does, show up in the trace as the documented
// counters and instants, and survive a resume.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "temp_dir.hpp"
#include "trace_counters.hpp"
#include "train_cli.hpp"

namespace fs = std::filesystem;
using parity::profiler::InstantRow;
using parity::profiler::TraceReader;
namespace schema = parity::profiler::schema;
using namespace parity_train_cli;

namespace {

std::vector<std::int64_t> overflow_instants(const fs::path& db) {
  TraceReader trace(db);
  std::vector<std::int64_t> steps;
  schema::for_each<schema::kTable<InstantRow>, &InstantRow::arg>(
      trace.db(),
      "WHERE name_id IN (SELECT id FROM string WHERE text = 'grad_overflow') ORDER BY ts_ns",
      // arg: the overflowing step; a missing one reads as -1, which no expected list holds.
      [&](const InstantRow& row) { steps.push_back(row.arg.value_or(-1)); });
  return steps;
}

ProcessResult train(const fs::path& config, std::vector<std::string> extra) {
  std::vector<std::string> args{"train", "--config", config.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return parity_train(args);
}

// A run that must succeed.
ProcessResult train_ok(const fs::path& config, std::vector<std::string> extra) {
  ProcessResult run = train(config, std::move(extra));
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  return run;
}

// A config with the dynamic manager, written into `dir`.
fs::path dynamic_config(const fs::path& dir, const std::string& scale, const std::string& window) {
  Config config(dir);
  config.set("loss_scale_manager", "dynamic")
      .set("loss_scale", scale)
      .set("loss_scale_window", window);
  return config.write(dir / "dynamic.yaml");
}

// The trainable state of a checkpoint: parameters and momentum buffers, not
// the BN statistics (a skipped step's forward still moves those, as in PyTorch).
std::map<std::string, std::vector<std::byte>> trainable_state(const fs::path& checkpoint) {
  std::map<std::string, std::vector<std::byte>> state;
  for (const auto& tensor : parity::trainer::read_checkpoint(checkpoint).tensors)
    if (tensor.name.find("running_") == std::string::npos &&
        tensor.name.find("num_batches_tracked") == std::string::npos)
      state[tensor.name] = tensor.data;
  return state;
}

}  // namespace

TEST_CASE("a dynamic loss scale skips planted overflows and moves as MindSpore's does", "[e2e]") {
  for (const std::string precision : {"float32", "float64"}) {
    DYNAMIC_SECTION("precision " << precision) {
      TempDir dir;
      const fs::path file = dynamic_config(dir.path(), "1024", "2");
      const fs::path db = dir.path() / "run.db";
      std::vector<std::string> options{"--max-steps", "7", "--plant-overflow", "2,5",
                                       "--trace", db.string(), "--set", "precision=" + precision};
      // The float64 reference kernels are 5x slower: smaller images.
      if (precision == "float64")
        options.insert(options.end(),
                       {"--set", "train_image_size=8", "--set", "eval_image_size=8"});
      const ProcessResult run = train_ok(file, options);
      // Window 2: two clean steps double the scale, an overflow halves it.
      CHECK(counter_values(db, "loss_scale") ==
            std::vector<double>{1024, 1024, 2048, 1024, 1024, 2048, 1024});
      CHECK(overflow_instants(db) == std::vector<std::int64_t>{2, 5});
      CHECK(counter_values(db, "overflow_steps") == std::vector<double>{0, 0, 1, 1, 1, 2, 2});
      CHECK(counter_values(db, "skipped_steps") == std::vector<double>{0, 0, 1, 1, 1, 2, 2});
      // Every step has its loss; a planted overflow leaves the forward finite.
      CHECK(counter_values(db, "loss").size() == 7);
      CHECK_THAT(run.out,
                 Catch::Contains("dynamic loss scale 1024: 2 steps overflowed, 2 skipped"));
    }
  }
}

TEST_CASE("a skipped step leaves the parameters and the momentum as they were", "[e2e]") {
  for (const std::string manager : {"dynamic", "fixed"}) {
    INFO(manager);
    TempDir dir;
    Config config(dir.path());
    config.set("loss_scale_manager", manager).set("loss_scale", "256");
    config.set("drop_overflow_update", "true");
    const fs::path file = config.write(dir.path() / "run.yaml");
    const auto after_two =
        trainable_state(last_checkpoint(train_ok(file, {"--max-steps", "2"}).out));
    const ProcessResult three = train_ok(file, {"--max-steps", "3", "--plant-overflow", "2"});
    CHECK(trainable_state(last_checkpoint(three.out)) == after_two);
    CHECK_THAT(three.out, Catch::Contains("1 steps overflowed, 1 skipped"));
  }
}

TEST_CASE("a resumed run continues the dynamic loss scale where the checkpoint left it", "[e2e]") {
  TempDir dir;
  const fs::path file = dynamic_config(dir.path(), "4096", "3");
  const fs::path whole = dir.path() / "whole.db", first = dir.path() / "first.db",
                 second = dir.path() / "second.db";
  // Run b writes its checkpoints beside run a's, not over them.
  const std::vector<std::string> common{"--plant-overflow", "1,6", "--log-every", "1"};
  std::vector<std::string> b_common = common;
  b_common.insert(b_common.end(), {"--set", "checkpoint_path=" + (dir.path() / "b").string()});
  auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const ProcessResult a =
      train_ok(file, with({"--max-steps", "9", "--trace", whole.string()}, common));
  const ProcessResult b1 =
      train_ok(file, with({"--max-steps", "4", "--trace", first.string()}, b_common));
  const fs::path checkpoint = last_checkpoint(b1.out);
  const auto saved = parity::trainer::read_checkpoint(checkpoint);
  CHECK(saved.extra.at("loss_scale") == "2048");
  CHECK(saved.extra.at("loss_scale_clean_steps") == "2");
  CHECK(saved.extra.at("loss_scale_skipped_steps") == "1");
  const ProcessResult b2 = train_ok(
      file, with({"--resume", checkpoint.string(), "--max-steps", "5", "--trace", second.string()},
                 b_common));
  std::vector<double> pieced = counter_values(first, "loss_scale");
  for (const double v : counter_values(second, "loss_scale")) pieced.push_back(v);
  CHECK(pieced == counter_values(whole, "loss_scale"));
  CHECK(counter_values(second, "skipped_steps").back() == 2);
  // Step for step the same losses, overflowing steps included.
  CHECK(loss_lines(b1.out + b2.out) == loss_lines(a.out));
}

TEST_CASE("parity report counts the steps a fixed loss scale dropped", "[e2e]") {
  // A fixed scale never drops, so only the trainer's skipped_steps counter tells.
  TempDir dir;
  Config config(dir.path());
  config.set("loss_scale", "128").set("drop_overflow_update", "true");
  const fs::path file = config.write(dir.path() / "fixed.yaml");
  const fs::path db = dir.path() / "run.db";
  const ProcessResult run =
      train(file, {"--max-steps", "4", "--plant-overflow", "1", "--trace", db.string()});
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(counter_values(db, "loss_scale") == std::vector<double>{128, 128, 128, 128});
  CHECK(overflow_instants(db) == std::vector<std::int64_t>{1});
  const ProcessResult report = run_process({PARITY_CLI, "report", db.string(), "--format", "text"});
  INFO(report.out << report.err);
  CHECK(report.exit_code == 0);
  CHECK_THAT(report.out, Catch::Contains("1 step skipped for gradient overflow (25.0% of steps)"));
}

TEST_CASE("loss scaling refuses what cannot work, with exit code 2", "[e2e]") {
  TempDir dir;
  Config config(dir.path());
  const fs::path fixed = config.write(dir.path() / "fixed.yaml");
  check_refused(train(fixed, {"--max-steps", "2", "--plant-overflow", "1"}),
                {"checks no gradients", "loss_scale_manager=dynamic"});
  check_refused(train(fixed, {"--set", "loss_scale_manager=dynamic", "--set", "loss_scale=0.5"}),
                {"'loss_scale' must be at least 1 with the dynamic manager"});
  check_refused(train(fixed, {"--set", "loss_scale_manager=static"}),
                {"loss_scale_manager", "fixed, dynamic"});
  check_refused(
      train(fixed, {"--set", "loss_scale_manager=dynamic", "--set", "loss_scale_factor=1"}),
      {"'loss_scale_factor' must be greater than 1"});
  // At scale 1 a dynamic scaler has nowhere to go: the run stops.
  const ProcessResult stuck =
      train(fixed, {"--set", "loss_scale_manager=dynamic", "--set", "loss_scale=1", "--max-steps",
                    "3", "--plant-overflow", "1"});
  check_refused(stuck, {"the gradients overflow at loss scale 1 (step 1)"});
}
