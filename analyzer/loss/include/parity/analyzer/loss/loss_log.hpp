// Loss curves from text logs: MindSpore's LossMonitor lines (`epoch: 1 step:
// 5, loss is 2.30258512`, which parity-train prints too) or the lines a
// user's LossPattern describes. Other lines (timings, evaluation, warnings)
// are skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "parity/analyzer/loss/loss_curve.hpp"
#include "parity/analyzer/loss/loss_pattern.hpp"

namespace parity::analyzer {

// The loss of a MindSpore loss line's value text: `2.30258512`, `[2.3]`,
// `Tensor(shape=[], dtype=Float32, value= 2.3)`, or the first of a tuple
// `(Tensor(... value= 2.3), Tensor(... Bool ...), ...)` (loss-scaled
// training); nullopt when it holds no number.
std::optional<double> mindspore_loss_value(const std::string& text);

// Throws parity::Error naming the file (and line) for a file that cannot be
// read, a loss line whose value is no number, two lines of one step, or a
// log with no loss line at all.
LossCurve read_mindspore_log(const std::filesystem::path& path,
                             std::optional<std::int64_t> steps_per_epoch = {});
LossCurve read_pattern_log(const std::filesystem::path& path, const LossPattern& pattern,
                           std::optional<std::int64_t> steps_per_epoch = {});

}  // namespace parity::analyzer
