#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "panels/diff_report_panel.hpp"
#include "panels/findings_panel.hpp"
#include "panels/op_table_panel.hpp"
#include "panels/step_chart_panel.hpp"
#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/gui/timeline/event_details.hpp"
#include "parity/gui/timeline/event_search.hpp"
#include "parity/gui/timeline/timeline_layout.hpp"
#include "parity/gui/timeline/timeline_loader.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "timeline/timeline_widget.hpp"

namespace parity::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("parity-view"));
  timeline_ = new TimelineWidget(state_, this);
  setCentralWidget(timeline_);
  build_docks();
  build_toolbar();
  build_status_bar();
  connect(&state_, &ViewState::selected_event_changed, this, &MainWindow::show_event_details);
  connect(&state_, &ViewState::selection_changed, this, &MainWindow::start_range_statistics);
  resize(1500, 950);
}

MainWindow::~MainWindow() = default;

void MainWindow::build_docks() {
  auto dock = [this](const QString& title, QWidget* widget, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(title);
    d->setWidget(widget);
    addDockWidget(area, d);
    return d;
  };
  details_ = new QTextBrowser(this);
  details_->setPlaceholderText(tr("Click an event for its details."));
  auto* statistics = new QWidget(this);
  auto* layout = new QVBoxLayout(statistics);
  layout->setContentsMargins(0, 0, 0, 0);
  statistics_title_ =
      new QLabel(tr("Drag with the right button (or Shift) to select a range."), statistics);
  auto* table = new QTableView(statistics);
  auto* sorted = new QSortFilterProxyModel(table);
  sorted->setSourceModel(&statistics_model_);
  sorted->setSortRole(RangeStatisticsModel::kSortRole);
  table->setModel(sorted);
  table->setSortingEnabled(true);
  table->sortByColumn(RangeStatisticsModel::kTotal, Qt::DescendingOrder);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  layout->addWidget(statistics_title_);
  layout->addWidget(table);

  step_chart_ = new StepChartPanel(state_, this);
  op_table_ = new OpTablePanel(state_, this);
  findings_ = new FindingsPanel(state_, this);
  run_diff_ = new DiffReportPanel(state_, this);
  auto* details_dock = dock(tr("Details"), details_, Qt::RightDockWidgetArea);
  auto* findings_dock = dock(tr("Findings"), findings_, Qt::RightDockWidgetArea);
  run_diff_dock_ = dock(tr("A | B diff"), run_diff_, Qt::RightDockWidgetArea);
  tabifyDockWidget(details_dock, findings_dock);
  tabifyDockWidget(findings_dock, run_diff_dock_);
  run_diff_dock_->hide();  // shown with two runs
  details_dock->raise();
  auto* statistics_dock = dock(tr("Range statistics"), statistics, Qt::BottomDockWidgetArea);
  auto* ops_dock = dock(tr("Operators"), op_table_, Qt::BottomDockWidgetArea);
  steps_dock_ = dock(tr("Step breakdown"), step_chart_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(statistics_dock, ops_dock);
  tabifyDockWidget(ops_dock, steps_dock_);
  statistics_dock->raise();
  resizeDocks({details_dock}, {380}, Qt::Horizontal);
  resizeDocks({statistics_dock}, {260}, Qt::Vertical);
}

void MainWindow::build_toolbar() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open traces"), {},
        tr("Traces (*.db *.sqlite *.json *.json.gz);;Parity traces (*.db *.sqlite);;PyTorch "
           "profiler traces (*.json *.json.gz);;All files (*)"));
    if (!paths.isEmpty()) open_traces(paths);
  });
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit"), this, [this] { state_.fit(); });
  view->addAction(tr("Clear selection"), this, [this] {
    state_.set_selection(std::nullopt);
    state_.set_selected_event(std::nullopt);
  });

  QToolBar* bar = addToolBar(tr("Search"));
  bar->setObjectName("search");
  search_ = new QLineEdit(bar);
  search_->setObjectName(QStringLiteral("search"));
  search_->setPlaceholderText(tr("Search names (Ctrl+F, Enter: next)"));
  search_->setClearButtonEnabled(true);
  search_->setMaximumWidth(320);
  bar->addWidget(search_);
  bar->addAction(tr("◀ Previous"), this, &MainWindow::search_previous);
  bar->addAction(tr("Next ▶"), this, &MainWindow::search_next);
  connect(search_, &QLineEdit::returnPressed, this, &MainWindow::search_next);
  auto* find = new QAction(this);
  find->setShortcut(QKeySequence::Find);
  connect(find, &QAction::triggered, this, [this] {
    search_->setFocus();
    search_->selectAll();
  });
  addAction(find);
  bar->addSeparator();
  auto* filter = new QLineEdit(bar);
  filter->setPlaceholderText(tr("Filter names (dims the rest)"));
  filter->setClearButtonEnabled(true);
  filter->setMaximumWidth(260);
  bar->addWidget(filter);
  connect(filter, &QLineEdit::textChanged, &state_, &ViewState::set_name_filter);
  connect(&state_, &ViewState::name_filter_changed, filter, [this, filter] {
    if (filter->text() != state_.name_filter()) filter->setText(state_.name_filter());
  });
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Align traces at step "), bar));
  align_step_ = new QSpinBox(bar);
  align_step_->setEnabled(false);
  align_step_->setToolTip(tr("With several traces open: the step whose start lines up"));
  bar->addWidget(align_step_);
  connect(align_step_, qOverload<int>(&QSpinBox::valueChanged), this,
          [this](int step) { align_traces(step); });
}

void MainWindow::build_status_bar() {
  status_ = new QLabel(tr("Open a trace: File ▸ Open, or parity-view RUN.db"), this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(220);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    load_task_.cancel();
    api_task_.cancel();
    report_task_.cancel();
  });
  for (BackgroundTask* task : {&load_task_, &api_task_, &report_task_})
    connect(task, &BackgroundTask::progress, this,
            [this](double fraction) { progress_->setValue(static_cast<int>(fraction * 100)); });
}

void MainWindow::set_busy(const QString& what) {
  status_->setText(what);
  progress_->setValue(0);
  progress_->show();
  cancel_->show();
}

void MainWindow::set_idle(const QString& message) {
  status_->setText(message);
  progress_->hide();
  cancel_->hide();
}

QString MainWindow::status_text() const { return status_->text(); }
QString MainWindow::details_text() const { return details_->toPlainText(); }

void MainWindow::open_traces(const QStringList& paths) {
  statistics_task_.cancel();
  api_task_.cancel();
  report_task_.cancel();
  set_busy(tr("Loading %1…").arg(paths.join(QStringLiteral(", "))));
  disconnect(&load_task_, nullptr, this, nullptr);
  connect(&load_task_, &BackgroundTask::progress, this,
          [this](double fraction) { progress_->setValue(static_cast<int>(fraction * 100)); });
  connect(&load_task_, &BackgroundTask::failed, this, [this](const QString& message) {
    set_idle(tr("Could not open the trace"));
    auto* box =
        new QMessageBox(QMessageBox::Critical, tr("parity-view"),
                        tr("Could not open the trace:\n%1").arg(message), QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit load_failed(message);
  });
  connect(&load_task_, &BackgroundTask::cancelled, this,
          [this] { set_idle(tr("Loading cancelled")); });
  load_task_.start([this, paths](TaskControl& control) -> std::function<void()> {
    auto loaded = std::make_shared<std::vector<std::unique_ptr<TimelineData>>>();
    // A foreign trace (a PyTorch profiler JSON) is read through its conversion,
    // kept beside it as parity import would (docs/import.md).
    QStringList readable;
    for (const QString& path : paths)
      readable << QString::fromStdString(
          importers::trace::readable_trace(path.toStdString()).string());
    for (int i = 0; i < readable.size(); ++i) {
      TaskControl part =
          control.part(static_cast<std::size_t>(i), static_cast<std::size_t>(readable.size()));
      loaded->push_back(std::make_unique<TimelineData>(
          load_timeline(readable[i].toStdString(), &part, TimelineParts::kWithoutApiCalls)));
    }
    return [this, loaded, readable] { show_loaded(std::move(*loaded), readable); };
  });
}

void MainWindow::show_loaded(std::vector<std::unique_ptr<TimelineData>> loaded,
                             const QStringList& paths) {
  statistics_task_.wait();  // it reads the traces being replaced
  state_.set_selected_event(std::nullopt);
  state_.set_selection(std::nullopt);
  data_ = std::move(loaded);
  readers_.clear();
  readers_.resize(data_.size());
  paths_ = paths;
  std::size_t lanes = 0;
  for (const auto& trace : data_) lanes = std::max(lanes, trace->lanes.size());
  state_.set_lane_count(static_cast<int>(lanes));
  // Align at the first step every trace holds (the spin box changes it).
  std::int64_t first_common = -1;
  if (data_.size() > 1) {
    for (const StepSpan& step : data_[0]->steps) {
      const bool everywhere = std::all_of(data_.begin(), data_.end(), [&](const auto& trace) {
        return trace->step(step.step) != nullptr;
      });
      if (everywhere) {
        first_common = step.step;
        break;
      }
    }
  }
  align_step_->blockSignals(true);
  align_step_->setEnabled(first_common >= 0);
  if (first_common >= 0) {
    align_step_->setRange(static_cast<int>(data_[0]->steps.front().step),
                          static_cast<int>(data_[0]->steps.back().step));
    align_step_->setValue(static_cast<int>(first_common));
  }
  align_step_->blockSignals(false);
  align_traces(first_common);
  setWindowTitle(tr("parity-view — %1").arg(QFileInfo(paths.front()).fileName()));
  show_trace_status();
  emit timeline_shown();
  load_api_calls(paths);
}

void MainWindow::show_trace_status() {
  std::uint64_t events = 0, bytes = 0;
  for (const auto& trace : data_) {
    events += trace->events;
    bytes += trace->memory_bytes();
  }
  set_idle(tr("%1 events in %2 lanes · %3 MB held · %4")
               .arg(QLocale().toString(static_cast<qulonglong>(events)))
               .arg(state_.lane_order().size())
               .arg(bytes / 1'000'000)
               .arg(paths_.join(QStringLiteral(", "))));
}

void MainWindow::load_api_calls(const QStringList& paths) {
  set_busy(status_->text() + tr(" · loading CUDA API calls…"));
  disconnect(&api_task_, nullptr, this, nullptr);
  connect(&api_task_, &BackgroundTask::progress, this,
          [this](double fraction) { progress_->setValue(static_cast<int>(fraction * 100)); });
  auto fail = [this](const QString& message) {
    show_trace_status();
    status_->setText(status_->text() + tr(" · CUDA API calls not loaded: %1").arg(message));
  };
  connect(&api_task_, &BackgroundTask::failed, this, fail);
  connect(&api_task_, &BackgroundTask::cancelled, this, [fail] { fail(tr("cancelled")); });
  api_task_.start([this, paths](TaskControl& control) -> std::function<void()> {
    auto rows = std::make_shared<std::vector<ApiCallRows>>();
    for (int i = 0; i < paths.size(); ++i) {
      TaskControl part =
          control.part(static_cast<std::size_t>(i), static_cast<std::size_t>(paths.size()));
      rows->push_back(read_api_calls(paths[i].toStdString(), &part));
    }
    return [this, rows, paths] {
      statistics_task_.wait();  // it reads the lanes about to grow
      std::size_t lanes = 0;
      for (std::size_t t = 0; t < data_.size() && t < rows->size(); ++t) {
        merge_api_calls(*data_[t], std::move((*rows)[t]));
        lanes = std::max(lanes, data_[t]->lanes.size());
      }
      state_.add_lanes(static_cast<int>(lanes));
      timeline_->update();
      show_trace_status();
      emit traces_loaded();
      start_report(paths);
    };
  });
}

void MainWindow::align_traces(std::int64_t step) {
  std::vector<TraceView> views;
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  const StepSpan* anchor = step >= 0 && !data_.empty() ? data_[0]->step(step) : nullptr;
  for (std::size_t t = 0; t < data_.size(); ++t) {
    const TimelineData& trace = *data_[t];
    std::int64_t offset = 0;
    if (anchor && t > 0)
      if (const StepSpan* own = trace.step(step)) offset = anchor->start_ns - own->start_ns;
    views.push_back({&trace, offset, QFileInfo(QString::fromStdString(trace.path)).fileName()});
    first = std::min(first, trace.extent.start_ns + offset);
    last = std::max(last, trace.extent.end_ns + offset);
  }
  timeline_->set_traces(views);
  if (!views.empty()) state_.set_extent({first, last});
  // Run B, when two runs are open, is the second trace.
  for (ReportPanel* panel : report_panels())
    panel->set_run_b_offset(views.size() > 1 ? views[1].offset_ns : 0);
}

std::array<ReportPanel*, 4> MainWindow::report_panels() const {
  return {step_chart_, op_table_, findings_, run_diff_};
}

void MainWindow::start_report(const QStringList& paths) {
  // Several traces are the ranks of one run when their ranks differ;
  // otherwise they are separate runs, and the panels show the first two.
  std::set<std::int64_t> ranks;
  for (const auto& trace : data_) ranks.insert(trace->rank);
  const bool one_run = ranks.size() == data_.size();
  for (ReportPanel* panel : report_panels()) panel->set_report(nullptr);
  run_diff_dock_->setVisible(!one_run);
  const QString loaded_status = status_->text();
  connect_report_task(loaded_status);
  set_busy(status_->text() + tr(" · analyzing…"));
  if (!one_run) {
    start_run_pair_report(paths[0], paths[1], loaded_status);
    return;
  }
  std::vector<std::filesystem::path> run;
  for (const QString& path : paths) run.emplace_back(path.toStdString());
  report_task_.start([this, run, loaded_status](TaskControl& control) -> std::function<void()> {
    analyzer::ReportInputs inputs;
    inputs.traces = run;
    inputs.progress = [&control](double fraction) { control.progress(fraction); };
    auto report =
        std::make_shared<const analyzer::ProfileReport>(analyzer::build_profile_report(inputs));
    return [this, report, loaded_status] {
      for (ReportPanel* panel : report_panels()) panel->set_report(report);
      set_idle(loaded_status + tr(" · %1 findings").arg(report->findings.size()));
      emit report_ready();
    };
  });
}

void MainWindow::start_run_pair_report(const QString& a, const QString& b,
                                       const QString& loaded_status) {
  report_task_.start([this, a, b, loaded_status](TaskControl& control) -> std::function<void()> {
    auto pair = std::make_shared<const RunPair>(analyze_run_pair(
        a.toStdString(), b.toStdString(), [&control](double f) { control.progress(f); }));
    return [this, pair, loaded_status] {
      for (ReportPanel* panel : report_panels()) panel->set_run_pair(pair);
      // Two runs are opened to compare them: show the panels that do.
      steps_dock_->raise();
      run_diff_dock_->raise();
      resizeDocks({steps_dock_}, {height() * 2 / 5}, Qt::Vertical);  // room for two charts
      set_idle(loaded_status + tr(" · findings: %1 in A, %2 in B")
                                   .arg(pair->a->findings.size())
                                   .arg(pair->b->findings.size()));
      emit report_ready();
    };
  });
}

void MainWindow::connect_report_task(const QString& loaded_status) {
  disconnect(&report_task_, nullptr, this, nullptr);
  connect(&report_task_, &BackgroundTask::progress, this,
          [this](double fraction) { progress_->setValue(static_cast<int>(fraction * 100)); });
  connect(&report_task_, &BackgroundTask::failed, this,
          [this, loaded_status](const QString& message) {
            set_idle(loaded_status + tr(" · analysis failed: %1").arg(message));
          });
  connect(&report_task_, &BackgroundTask::cancelled, this,
          [this, loaded_status] { set_idle(loaded_status + tr(" · analysis cancelled")); });
}

void MainWindow::show_event_details() {
  const auto& event = state_.selected_event();
  if (!event || event->trace < 0 || static_cast<std::size_t>(event->trace) >= data_.size()) {
    details_->clear();
    return;
  }
  const auto t = static_cast<std::size_t>(event->trace);
  QString html = QStringLiteral("<table cellspacing='4'>");
  try {
    if (!readers_[t]) readers_[t] = std::make_unique<profiler::TraceReader>(data_[t]->path);
    for (const auto& [key, value] : describe_event(*data_[t], *event, *readers_[t]))
      html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                  .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
  } catch (const std::exception& e) {
    html += QStringLiteral("<tr><td colspan='2'>%1</td></tr>")
                .arg(QString::fromUtf8(e.what()).toHtmlEscaped());
  }
  details_->setHtml(html + QStringLiteral("</table>"));
}

void MainWindow::start_range_statistics() {
  const auto& range = state_.selection();
  if (!range || range->length_ns() <= 0 || data_.empty()) {
    statistics_task_.cancel();
    return;
  }
  statistics_title_->setText(tr("Computing statistics of %1…")
                                 .arg(format_duration(static_cast<double>(range->length_ns()))));
  const std::vector<TraceView> views = timeline_->traces();
  const TimeWindow selected = *range;
  disconnect(&statistics_task_, nullptr, this, nullptr);
  connect(&statistics_task_, &BackgroundTask::failed, this,
          [this](const QString& message) { statistics_title_->setText(message); });
  statistics_task_.start([this, views, selected](TaskControl& control) -> std::function<void()> {
    auto result =
        std::make_shared<std::vector<RangeStatistic>>(range_statistics(views, selected, &control));
    return [this, result, selected] {
      statistics_model_.set_statistics(std::move(*result), selected);
      statistics_title_->setText(
          tr("%1 selected: %2 names")
              .arg(format_duration(static_cast<double>(selected.length_ns())))
              .arg(statistics_model_.rowCount()));
      emit range_statistics_ready();
    };
  });
}

bool MainWindow::show_step(std::int64_t step) {
  if (data_.empty()) return false;
  const StepSpan* span = data_.front()->step(step);
  if (!span) return false;
  state_.show_range({span->start_ns, span->end_ns});
  return true;
}

void MainWindow::find(const QString& text) {
  search_->setText(text);
  search_next();
}

void MainWindow::search_next() { search(true); }
void MainWindow::search_previous() { search(false); }

void MainWindow::search(bool forward) {
  const QString text = search_->text();
  if (text.isEmpty() || data_.empty()) return;
  const std::vector<TraceView>& views = timeline_->traces();
  std::int64_t from = forward ? state_.window().start_ns - 1 : state_.window().end_ns;
  if (const auto& selected = state_.selected_event()) {
    const TraceView& view = views[static_cast<std::size_t>(selected->trace)];
    const EventRow& row = view.data->lanes[static_cast<std::size_t>(selected->lane)]
                              .rows[static_cast<std::size_t>(selected->row)];
    from = row.starts[static_cast<std::size_t>(selected->index)] + view.offset_ns;
  }
  const auto hit = find_event(views, text, from, forward);
  if (!hit) {
    status_->setText(tr("No %1 match for '%2'").arg(forward ? tr("later") : tr("earlier"), text));
    return;
  }
  // Keep the zoom unless the hit does not fit; centre it.
  const TimeWindow window = state_.window();
  if (hit->span.length_ns() * 2 > window.length_ns()) {
    state_.set_window({hit->span.start_ns - hit->span.length_ns() / 2,
                       hit->span.end_ns + hit->span.length_ns() / 2});
  } else {
    const std::int64_t centre = hit->span.start_ns + hit->span.length_ns() / 2;
    state_.set_window({centre - window.length_ns() / 2, centre + window.length_ns() / 2});
  }
  state_.set_selected_event(hit->event);
}

}  // namespace parity::gui
