#include "parity/gui/loss/loss_loader.hpp"

#include "parity/analyzer/loss/loss_input.hpp"

namespace parity::gui {

analyzer::LossComparison load_loss_comparison(const QString& a, const QString& b,
                                              TaskControl& control) {
  analyzer::LossCurve curve_a = analyzer::read_loss_curve(a.toStdString());
  control.progress(0.5);
  analyzer::LossCurve curve_b = analyzer::read_loss_curve(b.toStdString());
  control.progress(1.0);
  return analyzer::compare_losses(std::move(curve_a), std::move(curve_b));
}

}  // namespace parity::gui
