// Runs the comparison behind `parity-view --loss A B`: reads both loss curves
// as `parity loss-compare` does (logs, patterns aside; traces; Chrome traces)
// and compares them with its default tolerances. Meant to run inside a
// BackgroundTask.
#pragma once

#include <QString>

#include "parity/analyzer/loss/loss_compare.hpp"
#include "parity/gui/background_task.hpp"

namespace parity::gui {

// Reports progress through `control` (after each curve). Throws TaskCancelled
// once the task is cancelled, parity::Error for a file that cannot be read.
analyzer::LossComparison load_loss_comparison(const QString& a, const QString& b,
                                              TaskControl& control);

}  // namespace parity::gui
