#include "diff_window.hpp"

#include "parity/gui/compare/weight_diff_loader.hpp"

namespace parity::gui {

WeightDiffWindow::WeightDiffWindow(const QString& a, const QString& b, QWidget* parent)
    : ComparisonWindow(tr("Weight diff"), a, b, parent) {
  load<WeightDiffModel>([a, b](TaskControl& control) { return load_weight_diff(a, b, control); });
}

}  // namespace parity::gui
