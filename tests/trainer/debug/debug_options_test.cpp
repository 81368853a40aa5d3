// Parsing of the debugging options: step selections, dump contents, planted
// bugs and NaNs; every bad form is refused naming the option.
#include <catch2/catch.hpp>

#include "expect_error.hpp"
#include "parity/trainer/debug/planted_faults.hpp"
#include "parity/trainer/debug/tensor_dumper.hpp"

using namespace parity::trainer;
using parity::test::expect_error;

TEST_CASE("step selections are all, a step, a range, or a list of those", "[unit]") {
  const StepSelection all = StepSelection::parse("all");
  CHECK(all.contains(0));
  CHECK(all.contains(123456));
  CHECK(all.last() == -1);
  const StepSelection some = StepSelection::parse("0-2,7,10-11");
  for (std::int64_t step : {0, 1, 2, 7, 10, 11}) CHECK(some.contains(step));
  for (std::int64_t step : {3, 6, 8, 9, 12}) CHECK_FALSE(some.contains(step));
  CHECK(some.last() == 11);
  CHECK(some.text() == "0-2,7,10-11");
  for (const char* bad : {"", "x", "1-", "-1", "3-1", "1,,2", "1.5", "2-x"})
    expect_error([bad] { StepSelection::parse(bad); }, bad[0] == '3' ? "ends before" : "",
                 {"--dump-steps"});
}

TEST_CASE("dump contents are a list of fwd, bwd, params, grads, buffers, optimizer", "[unit]") {
  const DumpContents only = DumpContents::parse("fwd,grads");
  CHECK(only.forward);
  CHECK(only.grads);
  CHECK_FALSE(only.backward);
  CHECK_FALSE(only.params);
  CHECK_FALSE(only.buffers);
  CHECK_FALSE(only.optimizer);
  const DumpContents state = DumpContents::parse("buffers,optimizer");
  CHECK(state.buffers);
  CHECK(state.optimizer);
  CHECK_FALSE(state.forward);
  // By default everything but the optimizer's state, which is asked for.
  CHECK(DumpContents{}.buffers);
  CHECK_FALSE(DumpContents{}.optimizer);
  expect_error([] { DumpContents::parse("fwd,weights"); }, "unknown dump content 'weights'",
               {"--dump-what"});
}

TEST_CASE("planted bugs name a kind and optionally a layer", "[unit]") {
  const PlantedBug pad = PlantedBug::parse("same-pad");
  CHECK(pad.kind == PlantedBug::kSamePadding);
  CHECK(pad.layer == "layer2.0.conv2");
  const PlantedBug eps = PlantedBug::parse("bn-eps:layer3.1.bn2");
  CHECK(eps.kind == PlantedBug::kBatchNormEpsilon);
  CHECK(eps.layer == "layer3.1.bn2");
  CHECK(eps.text() == "bn-eps:layer3.1.bn2");
  CHECK(PlantedBug::parse("label-smooth").layer.empty());
  CHECK(PlantedBug::parse("transpose-weight").layer == "layer1.0.conv2");
  const PlantedBug relu = PlantedBug::parse("drop-relu");
  CHECK(relu.kind == PlantedBug::kDroppedRelu);
  CHECK(relu.layer == "layer1.1");
  CHECK(PlantedBug::parse("drop-relu:layer3.2").text() == "drop-relu:layer3.2");
  const PlantedBug momentum = PlantedBug::parse("bn-momentum");
  CHECK(momentum.kind == PlantedBug::kBatchNormMomentum);
  CHECK(momentum.layer == "layer2.0.bn2");
  const PlantedBug frozen = PlantedBug::parse("frozen-bn-stats:layer1.0.bn1");
  CHECK(frozen.kind == PlantedBug::kFrozenBatchNormStats);
  CHECK(frozen.text() == "frozen-bn-stats:layer1.0.bn1");
  CHECK(PlantedBug::parse("frozen-bn-stats").layer == "layer3.0.bn1");
  expect_error([] { PlantedBug::parse("off-by-one"); }, "unknown bug 'off-by-one'",
               {"--plant-bug"});
  expect_error([] { PlantedBug::parse("label-smooth:fc"); }, "planted in the loss",
               {"--plant-bug"});
  expect_error([] { PlantedBug::parse("bn-eps:"); }, "no layer after", {"--plant-bug"});
}

TEST_CASE("a planted NaN is LAYER@STEP", "[unit]") {
  const PlantedNan nan = PlantedNan::parse("layer3.1.conv2@4");
  CHECK(nan.layer == "layer3.1.conv2");
  CHECK(nan.step == 4);
  for (const char* bad : {"layer3", "@2", "conv1@", "conv1@x", "conv1@-1"})
    expect_error([bad] { PlantedNan::parse(bad); }, "is not LAYER@STEP", {"--plant-nan"});
}
