// WeightDiffWindow: `parity-view --diff A B`, the weight diff of two
// checkpoints (any pair of the formats `parity diff` reads): every parameter
// paired across naming schemes, with its metrics and status, the first
// finding selected, and the histogram of the pairs' largest differences.
#pragma once

#include "comparison_window.hpp"
#include "parity/gui/compare/weight_diff_model.hpp"

namespace parity::gui {

class WeightDiffWindow : public ComparisonWindow {
  Q_OBJECT

 public:
  // Starts diffing checkpoint `a` against `b` (B is the reference of relative
  // differences) in the background; the window shows progress meanwhile.
  WeightDiffWindow(const QString& a, const QString& b, QWidget* parent = nullptr);

  // Null until the diff has loaded.
  WeightDiffModel* weight_model() const { return qobject_cast<WeightDiffModel*>(model()); }
};

}  // namespace parity::gui
