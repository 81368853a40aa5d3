// ComparisonWindow: what the two comparison views of parity-view (weight
// diff, tensor compare) share. It runs the analyzer in the background with a
// progress bar and a Cancel button, then shows the verdict and counts, the
// model in a sortable table with a filter box, the first mismatch selected and
// scrolled to, and the histogram of errors. A load that fails shows its
// message in the window.
//
// Keys: Ctrl+F filter, Esc cancel the load or clear the filter, Ctrl+G the
// first mismatch, F8 / Shift+F8 the next / previous finding, F5 load again.
#pragma once

#include <QMainWindow>
#include <functional>
#include <memory>
#include <type_traits>

#include "parity/gui/background_task.hpp"
#include "parity/gui/compare/comparison_model.hpp"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace parity::gui {

class HistogramChart;

class ComparisonWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class State { kLoading, kLoaded, kFailed, kCancelled };

  State state() const { return state_; }
  // Why the last load failed or that it was cancelled; empty otherwise.
  QString message() const;
  // The loaded model; null until a load succeeds.
  ComparisonModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  HistogramChart* histogram() const { return histogram_; }

  // Selects the model's `row` and scrolls to it, clearing a filter that hides it.
  void select_row(int row);

 signals:
  // A load ended: loaded, failed or cancelled (see state()).
  void load_ended();

 protected:
  // `title` names the view; A and B are what it compares.
  ComparisonWindow(const QString& title, const QString& a, const QString& b, QWidget* parent);

  // Runs `run(TaskControl&)`, which returns the analyzer's result, on a pool
  // thread, then shows that result in a new Model (constructed from it).
  template <class Model, class Run>
  void load(Run run) {
    using Result = std::invoke_result_t<Run&, TaskControl&>;
    work_ = [this, run = std::move(run)](TaskControl& control) -> std::function<void()> {
      auto result = std::make_shared<Result>(run(control));
      // Runs on the GUI thread, and only while the window (and its task) lives.
      return [this, result] { show_model(new Model(std::move(*result), this)); };
    };
    reload();
  }

 private:
  void build_actions();
  void reload();
  void show_model(ComparisonModel* model);
  void end_load(State state, const QString& message);
  void cancel_or_clear_filter();
  // Selects a row of the proxy and scrolls to it.
  void show_index(const QModelIndex& index);
  // Selects the next (step 1) or previous (step -1) row that is a finding.
  void step_finding(int step);

  BackgroundTask* task_;
  BackgroundTask::Work work_;
  State state_ = State::kLoading;
  ComparisonModel* model_ = nullptr;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QLabel* message_;
  QLabel* summary_;
  QLineEdit* filter_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  HistogramChart* histogram_;
};

}  // namespace parity::gui
