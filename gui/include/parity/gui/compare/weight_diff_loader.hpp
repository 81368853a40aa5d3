// Runs the weight diff behind `parity-view --diff A B`: opens the two tensor
// files as `parity diff` does (any format the importers read, recognised by
// content) and diffs them with its defaults (automatic pairing, tolerances by
// dtype). Meant to run inside a BackgroundTask.
#pragma once

#include <QString>

#include "parity/analyzer/weights/weight_diff.hpp"
#include "parity/gui/background_task.hpp"

namespace parity::gui {

// Reports the share of pairs compared through `control`. Throws TaskCancelled
// once the task is cancelled (before the next tensor is read), parity::Error
// for a file that cannot be opened or read.
analyzer::WeightDiff load_weight_diff(const QString& a, const QString& b, TaskControl& control);

}  // namespace parity::gui
