// The loss scaler's bookkeeping (MindSpore's fixed and dynamic managers,
// step by step) and the CPU backend's overflow check on gradients in
// oneDNN's blocked layouts.
#include "parity/trainer/optim/loss_scaler.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "parity/core/error.hpp"
#include "parity/trainer/backend/cpu_backend.hpp"
#include "parity/trainer/config/train_config.hpp"

using namespace parity::trainer;

namespace {

struct Outcome {
  bool applied;
  double scale_after;
};

std::vector<Outcome> run(LossScaler& scaler, const std::vector<bool>& overflows) {
  std::vector<Outcome> outcomes;
  for (const bool overflow : overflows) {
    const bool applied = scaler.finish_step(overflow);
    outcomes.push_back({applied, scaler.scale()});
  }
  return outcomes;
}

}  // namespace

TEST_CASE("a fixed loss scale never moves and drops overflowing steps only when told to",
          "[unit]") {
  for (const bool drop : {false, true}) {
    INFO("drop_overflow_update " << drop);
    LossScaler scaler({LossScaleKind::kFixed, 128.0, drop, 2.0, 1});
    CHECK(scaler.checks_overflow() == drop);
    const auto outcomes = run(scaler, {false, true, false, true, true});
    for (std::size_t i = 0; i < outcomes.size(); ++i) CHECK(outcomes[i].scale_after == 128.0);
    CHECK(outcomes[1].applied == !drop);
    CHECK(outcomes[0].applied);
    CHECK(outcomes[2].applied);
    CHECK(scaler.state().overflow_steps == 3);
    CHECK(scaler.state().skipped_steps == (drop ? 3 : 0));
  }
}

TEST_CASE("a dynamic loss scale halves on overflow and doubles after a clean window", "[unit]") {
  LossScaler scaler({LossScaleKind::kDynamic, 1024.0, false, 2.0, 3});
  CHECK(scaler.checks_overflow());
  //                            clean  clean  clean  ovf    clean  clean  ovf    clean  clean  clean
  const auto outcomes =
      run(scaler, {false, false, false, true, false, false, true, false, false, false});
  const std::vector<double> scales{1024, 1024, 2048, 1024, 1024, 1024, 512, 512, 512, 1024};
  const std::vector<bool> applied{true, true, true, false, true, true, false, true, true, true};
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    INFO("step " << i);
    CHECK(outcomes[i].scale_after == scales[i]);
    CHECK(outcomes[i].applied == applied[i]);
  }
  CHECK(scaler.state().overflow_steps == 2);
  CHECK(scaler.state().skipped_steps == 2);
  CHECK(scaler.state().clean_steps == 0);  // the last step grew the scale
}

TEST_CASE("a dynamic loss scale stays within 1 and the largest float", "[unit]") {
  LossScaler falling({LossScaleKind::kDynamic, 4.0, false, 2.0, 1000});
  const auto down = run(falling, {true, true, true, true});
  CHECK(down[0].scale_after == 2.0);
  CHECK(down[1].scale_after == 1.0);
  CHECK(down[3].scale_after == 1.0);

  const double top = std::ldexp(1.0, 127);  // 2^128 is past the largest float
  LossScaler rising({LossScaleKind::kDynamic, top, false, 2.0, 1});
  const auto up = run(rising, {false, false});
  CHECK(up[0].scale_after == top);
  CHECK(up[1].scale_after == top);
  CHECK(std::isfinite(float(rising.scale())));
}

TEST_CASE("a restored loss scaler continues from the checkpoint's state", "[unit]") {
  LossScaler dynamic({LossScaleKind::kDynamic, 65536.0, false, 2.0, 3});
  dynamic.restore({256.0, 2, 5, 5}, "ckpt");
  CHECK(dynamic.scale() == 256.0);
  CHECK(dynamic.finish_step(false));
  CHECK(dynamic.scale() == 512.0);  // the third clean step of the saved window

  LossScaler fixed({LossScaleKind::kFixed, 64.0, true, 2.0, 3});
  fixed.restore({256.0, 0, 4, 1}, "ckpt");
  CHECK(fixed.scale() == 64.0);  // a fixed scale is the config's
  CHECK(fixed.state().overflow_steps == 4);

  for (const LossScaleState damaged :
       {LossScaleState{0.0, 0, 0, 0}, LossScaleState{8.0, -1, 0, 0}, LossScaleState{8.0, 0, 1, 2},
        LossScaleState{std::nan(""), 0, 0, 0}}) {
    LossScaler scaler({LossScaleKind::kDynamic, 8.0, false, 2.0, 3});
    CHECK_THROWS_AS(scaler.restore(damaged, "ckpt"), parity::Error);
    CHECK(scaler.scale() == 8.0);
  }
  CHECK_THROWS_WITH(load_train_config({}, {"loss_scale_manager=static"}),
                    Catch::Contains("fixed, dynamic"));
}

TEST_CASE("the CPU backend finds one Inf or NaN among gradients in blocked layouts", "[unit]") {
  auto backend = make_cpu_backend({1, true});
  // A 3x3 conv with 20 -> 24 channels: oneDNN blocks its weight by 8 or 16
  // channels, so the gradient's storage has padding beyond the last value.
  auto conv = backend->conv2d(
      {.in_channels = 20, .out_channels = 24, .kernel = 3, .padding = 1, .input = {2, 20, 8, 8}});
  auto fc = backend->linear({24, 5, {2, 24}});
  std::vector<ParamTensors*> params;
  for (auto* op : {conv.get(), fc.get()})
    for (const ParamSlot& slot : op->parameters()) params.push_back(slot.tensors);
  REQUIRE(params.size() == 3);  // conv weight, fc weight and bias

  const auto reset = [&] {
    for (ParamTensors* p : params) backend->fill(p->grad, 0.25f);
  };
  reset();
  CHECK(backend->gradients_finite(params));
  const float bad_values[] = {std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()};
  for (std::size_t which = 0; which < params.size(); ++which)
    for (const float bad : bad_values) {
      const Tensor& grad = params[which]->grad;
      // The last logical element: in a blocked layout it lies anywhere in the storage.
      std::vector<float> values(static_cast<std::size_t>(grad.element_count()), 0.25f);
      values.back() = bad;
      reset();
      backend->write(grad, values);
      INFO("parameter " << which << " value " << bad);
      CHECK_FALSE(backend->gradients_finite(params));
    }
  reset();
  CHECK(backend->gradients_finite(params));
}
