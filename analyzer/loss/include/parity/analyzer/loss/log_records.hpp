// The loss lines of a text log, before they are numbered: what a line said
// (its epoch and step, when it says them, and the loss), and the rule that
// turns them into global steps. Shared by the MindSpore-log reader and the
// user-pattern reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parity/analyzer/loss/loss_curve.hpp"

namespace parity::analyzer {

struct LogRecord {
  std::optional<std::int64_t> epoch, step;
  double loss = 0;
  std::int64_t line = 0;
};

// Numbers the records by global step:
// - without steps, the records are steps 1, 2, 3, ... in order;
// - without epochs, the step is the global step;
// - with both, steps that keep rising across epochs are already global;
//   steps that restart each epoch are counted within it, and the global step
//   is (epoch - 1) * steps_per_epoch + step, where steps_per_epoch is
//   `steps_per_epoch` when given, else the largest step number of the epochs
//   before the last (a log of one epoch needs none).
// Throws parity::Error naming `source` and both lines when two records land
// on the same step, or when there are no records.
LossCurve number_steps(const std::vector<LogRecord>& records, const std::string& source,
                       const std::string& kind, std::optional<std::int64_t> steps_per_epoch);

}  // namespace parity::analyzer
