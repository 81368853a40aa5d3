// LossWindow: `parity-view --loss A B`, the loss curves of two runs (logs or
// traces, read as `parity loss-compare` reads them) loaded in the background,
// then the verdict line, the first-loss reading and the chart of both curves
// with the band. A load that fails shows its message in the window.
#pragma once

#include <QMainWindow>
#include <optional>

#include "parity/analyzer/loss/loss_compare.hpp"
#include "parity/gui/background_task.hpp"

class QLabel;

namespace parity::gui {

class LossChart;

class LossWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class State { kLoading, kLoaded, kFailed };

  // Starts reading A (the reference) and B in the background.
  LossWindow(const QString& a, const QString& b, QWidget* parent = nullptr);

  State state() const { return state_; }
  // The comparison once loaded.
  const std::optional<analyzer::LossComparison>& comparison() const { return comparison_; }
  LossChart* chart() const { return chart_; }

 signals:
  // The load ended, loaded or failed (see state()).
  void load_ended();

 private:
  void show_comparison(analyzer::LossComparison comparison);
  void show_failure(const QString& message);

  State state_ = State::kLoading;
  std::optional<analyzer::LossComparison> comparison_;
  QLabel* verdict_;
  QLabel* reading_;
  LossChart* chart_;
  BackgroundTask* task_;
};

}  // namespace parity::gui
