// Reading loss curves from text logs: MindSpore's loss lines (per step, with
// timing lines between, sink mode's one line an epoch, the Tensor and list
// spellings) and user patterns, with their errors.
#include "parity/analyzer/loss/loss_log.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "expect_error.hpp"
#include "parity/analyzer/loss/loss_input.hpp"
#include "temp_dir.hpp"

using namespace parity::analyzer;
using parity::test::expect_error;

namespace {

std::filesystem::path write_log(const TempDir& dir, const std::string& name,
                                const std::string& text) {
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

std::vector<std::pair<std::int64_t, double>> steps_and_losses(const LossCurve& curve) {
  std::vector<std::pair<std::int64_t, double>> out;
  for (const LossPoint& point : curve.points) out.emplace_back(point.step, point.loss);
  return out;
}

using Steps = std::vector<std::pair<std::int64_t, double>>;

}  // namespace

TEST_CASE("MindSpore loss lines restart each epoch and count globally", "[unit]") {
  TempDir dir;
  const auto log = write_log(dir, "ms.log",
                             "[WARNING] ME(1234:5678,MainProcess):2023-01-01 something\n"
                             "epoch: 1 step: 1, loss is 2.30258512\n"
                             "epoch: 1 step: 2, loss is 2.2\n"
                             "epoch: 1 step: 3, loss is 2.1\n"
                             "epoch time: 4125.513 ms, per step time: 687.586 ms\n"
                             "epoch: 2 step: 1, loss is 1.9\r\n"
                             "epoch: 2 step: 3, loss is 1.7\n"
                             "epoch time: 1948.292 ms, per step time: 324.715 ms\n");
  const LossCurve curve = read_loss_curve(log);
  CHECK(curve.kind == "MindSpore log");
  CHECK(steps_and_losses(curve) == Steps{{1, 2.30258512}, {2, 2.2}, {3, 2.1}, {4, 1.9}, {6, 1.7}});
  CHECK(curve.points[3].line == 6);
  CHECK_THAT(curve.steps_note, Catch::Contains("3 steps per epoch"));
  SECTION("--steps-per-epoch overrides the inference") {
    LossInputOptions options;
    options.steps_per_epoch = 10;
    CHECK(read_loss_curve(log, options).points[3].step == 11);
  }
}

TEST_CASE("sink mode logs one line an epoch, as in the seeds", "[unit]") {
  TempDir dir;
  const auto log = write_log(dir, "sink.log",
                             "epoch: 1 step: 5004, loss is 4.2546034\n"
                             "epoch time: 1000.0 ms, per step time: 0.2 ms\n"
                             "epoch: 2 step: 5004, loss is 4.0819564\n"
                             "epoch: 3 step: 5004, loss is 3.7005644\n");
  CHECK(steps_and_losses(read_loss_curve(log)) ==
        Steps{{5004, 4.2546034}, {10008, 4.0819564}, {15012, 3.7005644}});
}

TEST_CASE("steps that rise across epochs are already global", "[unit]") {
  TempDir dir;
  const auto log = write_log(dir, "global.log",
                             "epoch: 1 step: 1, loss is 2\nepoch: 1 step: 2, loss is 1.5\n"
                             "epoch: 2 step: 3, loss is 1.25\n");
  CHECK(steps_and_losses(read_loss_curve(log)) == Steps{{1, 2}, {2, 1.5}, {3, 1.25}});
}

TEST_CASE("MindSpore's Tensor and list spellings of the loss", "[unit]") {
  CHECK(mindspore_loss_value("2.30258512") == 2.30258512);
  CHECK(mindspore_loss_value("[2.3]") == 2.3);
  CHECK(mindspore_loss_value("[ 2.5 ]") == 2.5);
  CHECK(mindspore_loss_value("Tensor(shape=[], dtype=Float32, value= 2.30258)") == 2.30258);
  CHECK(mindspore_loss_value("(Tensor(shape=[], dtype=Float32, value= 0.69), Tensor(shape=[], "
                             "dtype=Bool, value= False), Tensor(shape=[], dtype=Float32, value= "
                             "65536))") == 0.69);
  CHECK(mindspore_loss_value("1e-3") == 1e-3);
  CHECK(std::isnan(*mindspore_loss_value("nan")));
  CHECK_FALSE(mindspore_loss_value("unknown"));
}

TEST_CASE("a log without loss lines, or with a corrupt one, is refused with its line", "[unit]") {
  TempDir dir;
  const auto empty = write_log(dir, "none.log", "epoch time: 1 ms, per step time: 1 ms\n");
  expect_error([&] { read_loss_curve(empty); }, "no loss line found", empty);
  const auto corrupt =
      write_log(dir, "corrupt.log", "epoch: 1 step: 1, loss is 2.3\nepoch: 1 step: 2, loss is x\n");
  expect_error([&] { read_loss_curve(corrupt); }, "whose loss is no number", corrupt, "line 2");
  const auto twice =
      write_log(dir, "twice.log", "epoch: 1 step: 1, loss is 2.3\nepoch: 1 step: 1, loss is 2\n");
  expect_error([&] { read_loss_curve(twice); }, "step 1 has two loss lines", twice,
               "lines 1 and 2");
  expect_error([&] { read_loss_curve(dir / "missing.log"); }, "cannot read the log",
               dir / "missing.log");
}

TEST_CASE("a user pattern reads another framework's log", "[unit]") {
  TempDir dir;
  const auto log = write_log(dir, "torch.log",
                             "starting\nIter 10:  loss=0.5 lr=0.1\nIter 20: loss=2.5e-1 lr=0.1\n"
                             "eval acc 0.9\n");
  LossInputOptions options{"Iter {step}: loss={loss}", "--pattern-a", {}};
  const LossCurve curve = read_loss_curve(log, options);
  CHECK(curve.kind == "pattern log");
  CHECK(steps_and_losses(curve) == Steps{{10, 0.5}, {20, 0.25}});
  CHECK(curve.points[1].line == 3);

  SECTION("without {step}, the n-th match is step n; {*} skips any text") {
    options.pattern = "Iter {*} loss={loss}";
    CHECK(steps_and_losses(read_loss_curve(log, options)) == Steps{{1, 0.5}, {2, 0.25}});
  }
  SECTION("literal braces and epochs") {
    const auto braces =
        write_log(dir, "braces.log", "{e=1} [1/2] L=3\n{e=1} [2/2] L=2\n{e=2} [1/2] L=1\n");
    options.pattern = "{{e={epoch}}} [{step}/2] L={loss}";
    CHECK(steps_and_losses(read_loss_curve(braces, options)) == Steps{{1, 3}, {2, 2}, {3, 1}});
  }
  SECTION("no line matching is an error naming the lines and the first line") {
    options.pattern = "step {step} loss {loss}";
    expect_error([&] { read_loss_curve(log, options); }, "no line matches the pattern", log,
                 "lines 1-4");
  }
}

TEST_CASE("bad patterns are refused before any file is read", "[unit]") {
  expect_error([] { LossPattern("Iter {step}", "--pattern-a"); }, "has no {loss}",
               {"--pattern-a", "Iter {step}"});
  expect_error([] { LossPattern("{loss} {lr}", "--pattern-b"); }, "unknown placeholder {lr}",
               {"--pattern-b"});
  expect_error([] { LossPattern("{loss} {loss}", "--pattern-a"); }, "{loss} twice",
               {"--pattern-a"});
  expect_error([] { LossPattern("loss={loss", "--pattern-a"); }, "not closed", {"--pattern-a"});
}

TEST_CASE("a Chrome trace's loss counter is read through the import, one sample a step", "[unit]") {
  TempDir dir;
  const auto trace = write_log(dir, "profile.json",
                               R"({"traceEvents": [
{"ph": "X", "name": "ProfilerStep#0", "cat": "user_annotation", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "C", "name": "loss", "pid": 1, "tid": 1, "ts": 90, "args": {"value": 2.5}},
{"ph": "X", "name": "ProfilerStep#1", "cat": "user_annotation", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
{"ph": "C", "name": "loss", "pid": 1, "tid": 1, "ts": 190, "args": {"value": 2.25}}]})");
  const LossCurve curve = read_loss_curve(trace);
  CHECK(curve.source == trace.string());
  CHECK(curve.kind == "Chrome trace, imported");
  CHECK(steps_and_losses(curve) == Steps{{1, 2.5}, {2, 2.25}});
  const auto no_loss = write_log(dir, "no_loss.json",
                                 R"({"traceEvents": [
{"ph": "X", "name": "ProfilerStep#0", "cat": "user_annotation", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "C", "name": "memory", "pid": 1, "tid": 1, "ts": 9, "args": {"value": 1}}]})");
  expect_error([&] { read_loss_curve(no_loss); }, "no loss counter", "no_loss.json");
}
