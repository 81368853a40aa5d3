// MainWindow: parity-view's window for one or more traces: the timeline in
// the middle; docks for event details, range statistics, the step breakdown,
// operator statistics and findings; a search bar. Traces load in the
// background (progress and Cancel in the status bar): first everything but
// the CUDA API calls, painted at once, then those; the analyzer's report
// follows, also in the background, and fills the panels when it is ready:
// with two separate runs open, both runs' analyses and their diff.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <array>
#include <memory>
#include <vector>

#include "parity/gui/background_task.hpp"
#include "parity/gui/timeline/range_statistics.hpp"
#include "parity/gui/timeline/timeline_data.hpp"
#include "parity/gui/view_state.hpp"
#include "parity/profiler/trace_reader.hpp"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QDockWidget;
class QSpinBox;
class QTextBrowser;

namespace parity::gui {

class TimelineWidget;
class StepChartPanel;
class OpTablePanel;
class FindingsPanel;
class DiffReportPanel;
class ReportPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads the traces (replacing those shown) in the background.
  void open_traces(const QStringList& paths);

  ViewState& state() { return state_; }
  TimelineWidget* timeline() const { return timeline_; }
  const std::vector<std::unique_ptr<TimelineData>>& traces() const { return data_; }
  const RangeStatisticsModel& range_statistics_model() const { return statistics_model_; }
  StepChartPanel* step_chart() const { return step_chart_; }
  OpTablePanel* op_table() const { return op_table_; }
  FindingsPanel* findings() const { return findings_; }
  DiffReportPanel* run_diff() const { return run_diff_; }
  QDockWidget* run_diff_dock() const { return run_diff_dock_; }
  QString details_text() const;
  QString status_text() const;

 public slots:
  void search_next();
  void search_previous();
  // Selects the first trace's step `step` and zooms to it; false if it has none.
  bool show_step(std::int64_t step);
  // Puts `text` in the search bar and selects its first match from the view's start.
  void find(const QString& text);

 signals:
  // The timeline shows the traces (all but their CUDA API rows, which follow).
  void timeline_shown();
  // Every row is loaded.
  void traces_loaded();
  void load_failed(const QString& message);
  void report_ready();
  void range_statistics_ready();

 private:
  void build_docks();
  void build_toolbar();
  void build_status_bar();
  void show_loaded(std::vector<std::unique_ptr<TimelineData>> loaded, const QStringList& paths);
  void load_api_calls(const QStringList& paths);
  void show_trace_status();
  void start_report(const QStringList& paths);
  void start_run_pair_report(const QString& a, const QString& b, const QString& loaded_status);
  void connect_report_task(const QString& loaded_status);
  std::array<ReportPanel*, 4> report_panels() const;
  void align_traces(std::int64_t step);
  void show_event_details();
  void start_range_statistics();
  void search(bool forward);
  void set_busy(const QString& what);
  void set_idle(const QString& message);

  ViewState state_;
  TimelineWidget* timeline_ = nullptr;
  StepChartPanel* step_chart_ = nullptr;
  OpTablePanel* op_table_ = nullptr;
  FindingsPanel* findings_ = nullptr;
  DiffReportPanel* run_diff_ = nullptr;
  QDockWidget* run_diff_dock_ = nullptr;
  QDockWidget* steps_dock_ = nullptr;
  QTextBrowser* details_ = nullptr;
  RangeStatisticsModel statistics_model_;
  QLabel* statistics_title_ = nullptr;
  QLineEdit* search_ = nullptr;
  QSpinBox* align_step_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;

  std::vector<std::unique_ptr<TimelineData>> data_;
  std::vector<std::unique_ptr<profiler::TraceReader>> readers_;  // for details, opened on demand
  QStringList paths_;
  BackgroundTask load_task_;
  BackgroundTask api_task_;
  BackgroundTask report_task_;
  BackgroundTask statistics_task_;
};

}  // namespace parity::gui
