// Runs the tensor compare behind `parity-view --compare DIR_A DIR_B`: opens
// two dumps as `parity compare` does (a manifest, or a plain directory of .npy
// files), compares them with its defaults (identity name map, tolerances by
// dtype), and scans each for its first NaN/Inf as `parity nan-scan` does.
// Meant to run inside a BackgroundTask.
#pragma once

#include <QString>

#include "parity/analyzer/compare/dump_compare.hpp"
#include "parity/analyzer/compare/nan_scan.hpp"
#include "parity/gui/background_task.hpp"

namespace parity::gui {

struct TensorComparison {
  analyzer::DumpComparison comparison;
  // Each dump's first record holding NaN or Inf.
  analyzer::NanScan scan_a, scan_b;
};

// Reports progress through `control`. Throws TaskCancelled once the task is
// cancelled (after the pair being compared), parity::Error for a directory
// that is not a dump or a record that cannot be read (by the comparison or by
// a scan).
TensorComparison load_tensor_comparison(const QString& dir_a, const QString& dir_b,
                                        TaskControl& control);

}  // namespace parity::gui
