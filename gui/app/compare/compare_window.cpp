#include "compare_window.hpp"

#include "parity/gui/compare/tensor_compare_loader.hpp"

namespace parity::gui {

TensorCompareWindow::TensorCompareWindow(const QString& dir_a, const QString& dir_b,
                                         QWidget* parent)
    : ComparisonWindow(tr("Tensor compare"), dir_a, dir_b, parent) {
  load<TensorCompareModel>([dir_a, dir_b](TaskControl& control) {
    return load_tensor_comparison(dir_a, dir_b, control);
  });
}

}  // namespace parity::gui
