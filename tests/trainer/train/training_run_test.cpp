// End-to-end tests of the `parity-train` binary: real processes, configs in a
// temporary folder, the synthetic dataset and a ResNet-18 on 16-pixel images
// (one compute thread), so each run takes a second or two. They prove that a
// resumed run continues bit for bit, that checkpoints are named and rotated
// as documented and evaluate, that a traced run records every step, phase,
// layer, op, gradient and counter the trace schema promises (the checks are
// in traced_run_checks.cpp), that --data-delay-ms makes the run wait for its
// data, and that every kind of bad input stops the tool with exit code 2 and
// a message that says what is wrong.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "parity/importers/safetensors.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/trainer/checkpoint/training_checkpoint.hpp"
#include "temp_dir.hpp"
#include "traced_run_checks.hpp"
#include "train_cli.hpp"

namespace fs = std::filesystem;
using parity::profiler::QueueSampleRow;
using parity::profiler::RangeRow;
using parity::profiler::StepRow;
using parity::profiler::TraceReader;
namespace sql = parity::profiler::sql;
namespace schema = parity::profiler::schema;
using namespace parity_train_cli;

namespace {

std::set<std::string> file_names(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder))
    names.insert(entry.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("a run stopped by --max-steps and resumed prints the losses of an uninterrupted run",
          "[e2e]") {
  // Deterministic mode, one thread: the loss lines of run A (12 steps in one
  // go) and of B (4 steps, then a checkpoint) followed by C (resumed from
  // B's checkpoint) must be the same strings, digit for digit. That needs
  // the model, the momentum buffers, the BN statistics and counters, the
  // step counters, the learning-rate position and the data order all
  // restored exactly.
  TempDir dir;
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "bc");
  const auto config_a = Config(dir / "a").write(dir / "a.yaml");
  const auto config_bc = Config(dir / "bc").write(dir / "bc.yaml");

  const auto a = parity_train({"train", "--config", config_a.string(), "--log-every", "1"});
  INFO("A: " << a.err);
  REQUIRE(a.exit_code == 0);
  const auto b = parity_train(
      {"train", "--config", config_bc.string(), "--log-every", "1", "--max-steps", "4"});
  INFO("B: " << b.err);
  REQUIRE(b.exit_code == 0);
  const fs::path checkpoint = last_checkpoint(b.out);
  CHECK(checkpoint.filename() == "run-1_4.safetensors");
  const auto c = parity_train({"train", "--config", config_bc.string(), "--log-every", "1",
                               "--resume", checkpoint.string()});
  INFO("C: " << c.err);
  REQUIRE(c.exit_code == 0);
  CHECK_THAT(c.out, Catch::Contains("resumed from " + checkpoint.string() + " at step 4"));

  const auto lines_a = loss_lines(a.out);
  auto lines_bc = loss_lines(b.out);
  const auto lines_c = loss_lines(c.out);
  CHECK(lines_a.size() == 12);
  CHECK(lines_bc.size() == 4);
  CHECK(lines_c.size() == 8);
  lines_bc.insert(lines_bc.end(), lines_c.begin(), lines_c.end());
  CHECK(lines_bc == lines_a);
  // Not a vacuous match: the printed loss itself changes from step to step.
  std::set<std::string> losses;
  for (const auto& line : lines_a) losses.insert(line.substr(line.find(", loss is ")));
  CHECK(losses.size() == lines_a.size());

  // And the final checkpoints hold the same bits: weights, buffers, momentum.
  const auto final_a =
      parity::trainer::read_checkpoint(dir / "a" / "checkpoints" / "run-2_6.safetensors");
  const auto final_c =
      parity::trainer::read_checkpoint(dir / "bc" / "checkpoints" / "run-2_6.safetensors");
  REQUIRE(final_a.tensors.size() == final_c.tensors.size());
  std::size_t momentum_buffers = 0;
  for (std::size_t i = 0; i < final_a.tensors.size(); ++i) {
    INFO(final_a.tensors[i].name);
    CHECK(final_a.tensors[i].name == final_c.tensors[i].name);
    CHECK(final_a.tensors[i].data == final_c.tensors[i].data);
    momentum_buffers += final_a.tensors[i].name.starts_with(parity::trainer::kMomentumBufferPrefix);
  }
  CHECK(momentum_buffers == 62);  // one per ResNet-18 parameter
  CHECK(final_a.step == 12);
  CHECK(final_c.step == 12);
}

TEST_CASE("checkpoint files are named and rotated as documented and parity-train eval reads them",
          "[e2e]") {
  TempDir dir;
  Config config(dir.path());
  config.set("synthetic_size", "16").set("epoch_size", "3").set("keep_checkpoint_max", "2");
  config.set("class_num", "10");  // so that top-5 is not trivially 100%
  const auto file = config.write(dir / "run.yaml");
  // A file of another prefix in the same folder must survive the rotation.
  fs::create_directories(dir / "checkpoints");
  std::ofstream(dir / "checkpoints" / "other-1_1.safetensors") << "not ours";

  const auto run = parity_train({"train", "--config", file.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  // Three epochs of 2 steps, a checkpoint after each, only the last two kept.
  CHECK(file_names(dir / "checkpoints") == std::set<std::string>{"other-1_1.safetensors",
                                                                 "run-2_2.safetensors",
                                                                 "run-3_2.safetensors"});
  CHECK(last_checkpoint(run.out) == dir / "checkpoints" / "run-3_2.safetensors");
  const auto saved = parity::trainer::read_checkpoint(dir / "checkpoints" / "run-3_2.safetensors");
  CHECK(saved.epoch == 3);
  CHECK(saved.step == 6);
  CHECK(saved.step_in_epoch == 2);
  CHECK_THAT(saved.config_yaml, Catch::Contains("net_name: resnet18"));

  const auto eval = parity_train({"eval", "--config", file.string(), "--checkpoint",
                                  (dir / "checkpoints" / "run-3_2.safetensors").string()});
  INFO(eval.out << eval.err);
  REQUIRE(eval.exit_code == 0);
  CHECK_THAT(eval.out, Catch::Contains("(epoch 3, step 6) on 16 images"));
  std::smatch match;
  const std::regex accuracy(R"(top-1: (\d+\.\d\d)%  top-5: (\d+\.\d\d)%  loss: (\d+\.\d{4}))");
  REQUIRE(std::regex_search(eval.out, match, accuracy));
  const double top1 = std::stod(match[1]), top5 = std::stod(match[2]);
  CHECK(top1 >= 0.0);
  CHECK(top1 <= top5);
  CHECK(top5 <= 100.0);
  // 16 images: every accuracy is a multiple of 1/16 = 6.25%.
  CHECK(std::fmod(top1, 6.25) == Approx(0.0).margin(0.01));
  CHECK(std::fmod(top5, 6.25) == Approx(0.0).margin(0.01));
}

TEST_CASE("a traced run records what the trace schema promises for every training step", "[e2e]") {
  constexpr std::int64_t kSteps = 3;
  TempDir dir;
  Config config(dir.path());
  config.set("synthetic_size", "24").set("epoch_size", "1");
  const auto file = config.write(dir / "run.yaml");
  const auto run = parity_train({"train", "--config", file.string(), "--log-every", "1", "--trace",
                                 (dir / "run.db").string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto printed = loss_lines(run.out);
  REQUIRE(printed.size() == std::size_t(kSteps));

  TraceReader trace(dir / "run.db");
  traced_run::check_meta(trace);

  const traced_run::RangeTree tree(trace);
  const traced_run::Steps steps = tree.steps();
  std::vector<std::int64_t> step_numbers;
  for (const auto& [number, r] : steps) step_numbers.push_back(number);
  REQUIRE(step_numbers == std::vector<std::int64_t>{0, 1, 2});
  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM step") == kSteps);
  traced_run::check_step_phases(tree, steps);

  const auto parameters = trace.parameters();
  traced_run::check_parameters(parameters);
  traced_run::check_layer_ranges(tree, parameters, kSteps);
  traced_run::check_op_ranges(tree, parameters, kSteps);
  traced_run::check_reorders(trace);
  traced_run::check_gradient_ready(trace, tree.phases(), parameters, kSteps);
  traced_run::check_loss_and_lr(trace, steps, printed);
  traced_run::check_queue_samples(trace, kSteps);
}

TEST_CASE("parity-train --trace-steps records only the chosen steps, and refuses without --trace",
          "[e2e]") {
  TempDir dir;
  Config config(dir.path());
  config.set("epoch_size", "1").set("save_checkpoint", "false");  // 6 steps
  const auto file = config.write(dir / "run.yaml");
  const fs::path db = dir / "window.db";
  const auto run = parity_train(
      {"train", "--config", file.string(), "--trace", db.string(), "--trace-steps", "1-2,4"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  TraceReader trace(db);
  CHECK(trace.meta_value("trace_steps") == "1-2,4");
  CHECK(trace.meta_value("complete") == "1");
  std::vector<std::int64_t> steps;
  for (const StepRow& row :
       schema::read_all<schema::kTable<StepRow>, &StepRow::step>(trace.db(), "ORDER BY step"))
    steps.push_back(row.step);
  CHECK(steps == std::vector<std::int64_t>{1, 2, 4});
  // Every layer range lies in one of those steps, and each step has its layers.
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM range r WHERE r.category = 3 AND NOT EXISTS "
                       "(SELECT 1 FROM step s WHERE r.start_ns >= s.start_ns AND r.start_ns + "
                       "r.dur_ns <= s.end_ns)") == 0);
  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM range WHERE category = 3") > 3 * 20);
  const auto loss_counters = sql::query_int(
      trace.db(),
      "SELECT count(*) FROM counter c JOIN track t ON t.id = c.track_id JOIN string s ON "
      "s.id = t.name_id WHERE s.text = 'loss'");
  CHECK(loss_counters == 3);

  check_refused(
      parity_train({"train", "--config", file.string(), "--trace-steps", "1-2"}),
      {"--trace-steps chooses the steps of a trace, and no trace is written", "--trace RUN.db"});
  check_refused(parity_train({"train", "--config", file.string(), "--trace",
                              (dir / "bad.db").string(), "--trace-steps", "4-1"}),
                {"ends before it starts", "--trace-steps"});
  CHECK_FALSE(fs::exists(dir / "bad.db"));
}

TEST_CASE("device_target: GPU without a usable GPU is refused before training, with a hint",
          "[e2e]") {
  TempDir dir;
  Config config(dir.path());
  config.set("epoch_size", "1").set("save_checkpoint", "false").set("device_target", "GPU");
  const auto run = parity_train({"train", "--config", config.write(dir / "gpu.yaml").string()});
  if (run.exit_code == 0) return;  // this machine has a GPU and trained on it
  // A build without the CUDA backend says so; one with it finds no GPU here.
  check_refused(run, {"device_target: CPU"});
  CHECK_THAT(run.err, Catch::Contains("no CUDA backend") || Catch::Contains("no usable GPU"));
}

TEST_CASE("parity-train --data-delay-ms makes every step wait that long for its batch", "[e2e]") {
  // num_workers 0: the training thread builds each batch inside data_wait,
  // so the whole delay shows in the phase and in the consumer's wait.
  constexpr std::int64_t kSteps = 3, kDelayNs = 30'000'000;
  TempDir dir;
  Config config(dir.path());
  config.set("synthetic_size", "24").set("epoch_size", "1").set("num_workers", "0");
  config.set("save_checkpoint", "false");
  const auto file = config.write(dir / "run.yaml");
  struct Waits {
    std::vector<std::int64_t> data_wait, consumer;  // per step: phase duration, queue wait
  };
  const auto traced_run = [&](const std::string& delay_ms) {
    const fs::path db = dir / ("delay-" + delay_ms + ".db");
    const auto run = parity_train(
        {"train", "--config", file.string(), "--trace", db.string(), "--data-delay-ms", delay_ms});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    TraceReader trace(db);
    Waits waits;
    schema::for_each<schema::kTable<RangeRow>, &RangeRow::dur_ns>(
        trace.db(),
        "WHERE category = 2 AND name_id IN (SELECT id FROM string WHERE text = 'data_wait')",
        [&](const RangeRow& row) { waits.data_wait.push_back(row.dur_ns); });
    schema::for_each<schema::kTable<QueueSampleRow>, &QueueSampleRow::wait_ns>(
        trace.db(),
        "WHERE role = 2 AND track_id IN (SELECT t.id FROM track t JOIN string s ON "
        "s.id = t.name_id WHERE s.text = 'train_queue')",
        [&](const QueueSampleRow& row) { waits.consumer.push_back(row.wait_ns); });
    REQUIRE(waits.data_wait.size() == std::size_t(kSteps));
    REQUIRE(waits.consumer.size() == std::size_t(kSteps));
    return waits;
  };

  const Waits delayed = traced_run("30");
  for (std::int64_t s = 0; s < kSteps; ++s) {
    INFO("step " << s);
    CHECK(delayed.data_wait[std::size_t(s)] >= kDelayNs);
    CHECK(delayed.consumer[std::size_t(s)] >= kDelayNs);
  }
  // Building a batch of 8 16-pixel images takes well under a millisecond.
  const Waits prompt = traced_run("0");
  CHECK(*std::max_element(prompt.data_wait.begin(), prompt.data_wait.end()) < kDelayNs / 3);
  CHECK(*std::max_element(prompt.consumer.begin(), prompt.consumer.end()) < kDelayNs / 3);

  check_refused(parity_train({"train", "--config", file.string(), "--data-delay-ms", "-5"}),
                {"--data-delay-ms must be a non-negative number of milliseconds, got -5"});
  // A fixed batch replaces the loader: refused before the files are read.
  std::ofstream(dir / "images.npy") << "unread";
  std::ofstream(dir / "labels.npy") << "unread";
  check_refused(parity_train({"train", "--config", file.string(), "--data-delay-ms", "5",
                              "--input-batch", (dir / "images.npy").string(), "--input-labels",
                              (dir / "labels.npy").string()}),
                {"--data-delay-ms delays the dataset loader, which --input-batch replaces"});
}

TEST_CASE(
    "parity-train refuses bad configs and bad checkpoints with exit code 2 and a clear message",
    "[e2e]") {
  TempDir dir;
  const auto good = Config(dir.path()).write(dir / "good.yaml");

  SECTION("an unknown key names the key, the line and the valid keys") {
    const auto file = Config(dir.path()).set("lr_maxx", "0.1").write(dir / "typo.yaml");
    check_refused(
        parity_train({"train", "--config", file.string()}),
        {"unknown config key 'lr_maxx'", "typo.yaml:", "valid keys:", "lr_max", "batch_size"});
    check_refused(parity_train({"train", "--config", good.string(), "--set", "bach_size=4"}),
                  {"unknown config key 'bach_size'", "valid keys:"});
  }
  SECTION("a value of the wrong type or out of range names the key and the value") {
    const auto file = Config(dir.path()).set("batch_size", "many").write(dir / "type.yaml");
    check_refused(parity_train({"train", "--config", file.string()}),
                  {"config key 'batch_size' expects an integer, got 'many'", "type.yaml:"});
    check_refused(parity_train({"train", "--config", good.string(), "--set", "momentum=1.5"}),
                  {"config key 'momentum' must lie in [0, 1), got 1.5"});
    check_refused(parity_train({"train", "--config", good.string(), "--set", "net_name=resnet19"}),
                  {"config key 'net_name' is 'resnet19'", "resnet18"});
  }
  SECTION("a missing config file is named") {
    check_refused(parity_train({"train", "--config", (dir / "absent.yaml").string()}),
                  {(dir / "absent.yaml").string()});
  }
  SECTION("--resume of a file that is not a checkpoint names the file") {
    std::ofstream(dir / "notes.txt") << "these are not weights\n";
    check_refused(parity_train({"train", "--config", good.string(), "--resume",
                                (dir / "notes.txt").string()}),
                  {(dir / "notes.txt").string()});
    const std::vector<float> values(4, 1.f);
    const std::vector<parity::importers::NamedTensor> tensors{
        parity::importers::NamedTensor::from_values<float>("fc.bias", {4}, values)};
    parity::importers::write_safetensors(dir / "plain.safetensors", tensors);
    check_refused(parity_train({"train", "--config", good.string(), "--resume",
                                (dir / "plain.safetensors").string()}),
                  {"not a Parity training checkpoint", (dir / "plain.safetensors").string()});
  }
  SECTION("--resume of another network's checkpoint names both networks") {
    // Folder and prefix say nothing of the network: the names must come
    // from the checkpoint and the config.
    const auto other = Config(dir / "other").set("net_name", "resnet34").write(dir / "other.yaml");
    const auto trained = parity_train({"train", "--config", other.string(), "--max-steps", "1"});
    INFO(trained.err);
    REQUIRE(trained.exit_code == 0);
    const fs::path checkpoint = last_checkpoint(trained.out);
    check_refused(
        parity_train({"train", "--config", good.string(), "--resume", checkpoint.string()}),
        {checkpoint.string(), "resnet34", "resnet18"});
  }
}
