// Two loss curves aligned by step, and the first step where B leaves what A
// allows: A's loss within --atol + --rtol * |A|, or, when repeated runs of A
// are given, the band those runs span at that step (min..max of A and the
// repeats) widened by the same tolerances. The first common step is judged
// on its own as well: a first loss that differs points at the forward pass,
// the data or the initialisation; a first loss that matches and later losses
// that drift point at the backward pass and the update (the seeds' reading).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "parity/analyzer/loss/loss_curve.hpp"

namespace parity::analyzer {

struct LossTolerance {
  double atol = 1e-6, rtol = 1e-5;
};

// One step both curves hold.
struct LossStep {
  std::int64_t step = 0;
  double a = 0, b = 0;
  double low = 0, high = 0;  // what B may be: A (or the band) widened by the tolerance
  bool banded = false;       // low..high comes from repeated runs
  bool parted = false;       // B outside low..high, or either loss not finite
  double gap() const;        // |B - A|
};

struct LossComparison {
  LossCurve a, b;
  std::vector<LossCurve> band;  // repeated runs of A
  LossTolerance tolerance;
  std::vector<LossStep> steps;  // the common steps, in order
  std::vector<std::int64_t> only_a, only_b;
  std::optional<std::size_t> first_parted;  // index into steps
  std::optional<std::size_t> largest_gap;   // index into steps
  std::size_t parted = 0;

  // Every common step within what A allows, and at least one common step.
  bool matched() const { return !steps.empty() && !first_parted; }
  bool first_loss_differs() const { return first_parted == std::size_t{0}; }
};

LossComparison compare_losses(LossCurve a, LossCurve b, std::vector<LossCurve> band = {},
                              LossTolerance tolerance = {});

}  // namespace parity::analyzer
