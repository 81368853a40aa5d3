// TensorCompareWindow: `parity-view --compare DIR_A DIR_B`, the tensor compare
// of two dumps (a manifest, or a plain directory of .npy files): every record
// in A's execution order with its status and metrics, the first mismatch (the
// first tensor where the two runs part ways) selected, the first NaN/Inf
// marked, and the histogram of the pairs' largest differences.
#pragma once

#include "comparison_window.hpp"
#include "parity/gui/compare/tensor_compare_model.hpp"

namespace parity::gui {

class TensorCompareWindow : public ComparisonWindow {
  Q_OBJECT

 public:
  // Starts comparing dump `dir_a` against `dir_b` (B is the reference of
  // relative differences) in the background; the window shows progress meanwhile.
  TensorCompareWindow(const QString& dir_a, const QString& dir_b, QWidget* parent = nullptr);

  // Null until the comparison has loaded.
  TensorCompareModel* tensor_model() const { return qobject_cast<TensorCompareModel*>(model()); }
};

}  // namespace parity::gui
