#include "comparison_window.hpp"

#include <QAction>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

#include "histogram_chart.hpp"

namespace parity::gui {
namespace {

constexpr int kRowsMeasured = 100;
// Pixels; longer text (a failed check, a long name) is elided, whole in the tooltip.
constexpr int kWidestColumn = 420;

}  // namespace

ComparisonWindow::ComparisonWindow(const QString& title, const QString& a, const QString& b,
                                   QWidget* parent)
    : QMainWindow(parent),
      task_(new BackgroundTask(this)),
      progress_(new QProgressBar),
      cancel_(new QPushButton(tr("Cancel"))),
      message_(new QLabel),
      summary_(new QLabel),
      filter_(new QLineEdit),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView),
      histogram_(new HistogramChart) {
  setWindowTitle(tr("%1: %2 vs %3 - parity-view")
                     .arg(title, QFileInfo(a).fileName(), QFileInfo(b).fileName()));
  resize(1200, 800);

  progress_->setObjectName(QStringLiteral("progress"));
  progress_->setRange(0, 100);
  cancel_->setObjectName(QStringLiteral("cancel"));
  message_->setObjectName(QStringLiteral("message"));
  message_->setWordWrap(true);
  message_->setTextFormat(Qt::PlainText);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setStyleSheet(QStringLiteral("color: #b00020;"));
  message_->hide();
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setTextFormat(Qt::PlainText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setText(tr("Comparing %1 with %2 ...").arg(a, b));
  filter_->setObjectName(QStringLiteral("filter"));
  filter_->setPlaceholderText(tr("Filter by name, status, ... (Ctrl+F)"));
  filter_->setClearButtonEnabled(true);

  proxy_->setSortRole(ComparisonModel::kSortRole);
  proxy_->setFilterRole(ComparisonModel::kFilterRole);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  table_->setObjectName(QStringLiteral("table"));
  table_->setModel(proxy_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setWordWrap(false);
  table_->verticalHeader()->hide();
  // Fixed row heights: the view then never measures rows it does not show.
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  // No sort column at first: the analyzer's order, until a header is clicked.
  table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  table_->setSortingEnabled(true);
  // Columns are sized from the first rows only: measuring a thousand rows'
  // text takes longer than the 50 ms the window may stall.
  table_->horizontalHeader()->setResizeContentsPrecision(kRowsMeasured);
  table_->horizontalHeader()->setMaximumSectionSize(kWidestColumn);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  histogram_->setObjectName(QStringLiteral("histogram"));

  auto* loading = new QHBoxLayout;
  loading->addWidget(progress_, 1);
  loading->addWidget(cancel_);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(table_);
  splitter->addWidget(histogram_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->addLayout(loading);
  layout->addWidget(message_);
  layout->addWidget(summary_);
  layout->addWidget(filter_);
  layout->addWidget(splitter, 1);
  setCentralWidget(central);

  connect(cancel_, &QPushButton::clicked, task_, &BackgroundTask::cancel);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(task_, &BackgroundTask::progress, this,
          [this](double fraction) { progress_->setValue(static_cast<int>(fraction * 100)); });
  connect(task_, &BackgroundTask::finished, this, [this] { end_load(State::kLoaded, {}); });
  connect(task_, &BackgroundTask::failed, this, [this](const QString& error) {
    end_load(State::kFailed, tr("Could not compare: %1").arg(error));
  });
  connect(task_, &BackgroundTask::cancelled, this,
          [this] { end_load(State::kCancelled, tr("Cancelled. F5 loads again.")); });
  build_actions();
}

void ComparisonWindow::build_actions() {
  QMenu* menu = menuBar()->addMenu(tr("&Compare"));
  const auto add = [this, menu](const QString& text, const QKeySequence& key, auto slot) {
    QAction* action = menu->addAction(text);
    action->setShortcut(key);
    connect(action, &QAction::triggered, this, slot);
  };
  add(tr("&Filter"), QKeySequence::Find, [this] {
    filter_->setFocus();
    filter_->selectAll();
  });
  add(tr("Cancel Loading / Clear Filter"), QKeySequence(Qt::Key_Escape),
      [this] { cancel_or_clear_filter(); });
  add(tr("First &Mismatch"), QKeySequence(Qt::CTRL | Qt::Key_G), [this] {
    if (model_ && model_->first_mismatch_row()) select_row(*model_->first_mismatch_row());
  });
  add(tr("&Next Finding"), QKeySequence(Qt::Key_F8), [this] { step_finding(1); });
  add(tr("&Previous Finding"), QKeySequence(Qt::SHIFT | Qt::Key_F8), [this] { step_finding(-1); });
  add(tr("&Reload"), QKeySequence::Refresh, [this] { reload(); });
  menu->addSeparator();
  add(tr("&Close"), QKeySequence::Close, [this] { close(); });
}

QString ComparisonWindow::message() const {
  return message_->isHidden() ? QString() : message_->text();
}

void ComparisonWindow::reload() {
  state_ = State::kLoading;
  message_->hide();
  progress_->setValue(0);
  progress_->show();
  cancel_->show();
  statusBar()->showMessage(tr("Loading ..."));
  task_->start(work_);
}

void ComparisonWindow::show_model(ComparisonModel* model) {
  proxy_->setSourceModel(model);
  delete model_;  // the previous load's, if any
  model_ = model;
  summary_->setText(model->summary());
  histogram_->set_histogram(model->histogram());
  // Scrolled first, so that the rows measured for the column widths include
  // the mismatches' longer text.
  if (const auto first = model->first_mismatch_row()) select_row(*first);
  table_->resizeColumnsToContents();
}

void ComparisonWindow::end_load(State state, const QString& message) {
  state_ = state;
  progress_->hide();
  cancel_->hide();
  message_->setText(message);
  message_->setVisible(!message.isEmpty());
  statusBar()->showMessage(state == State::kLoaded   ? tr("Loaded")
                           : state == State::kFailed ? tr("Failed")
                                                     : tr("Cancelled"));
  emit load_ended();
}

void ComparisonWindow::cancel_or_clear_filter() {
  if (task_->running())
    task_->cancel();
  else
    filter_->clear();
}

void ComparisonWindow::select_row(int row) {
  if (!model_ || row < 0 || row >= model_->rowCount()) return;
  const QModelIndex source = model_->index(row, 0);
  if (!proxy_->mapFromSource(source).isValid()) filter_->clear();
  show_index(proxy_->mapFromSource(source));
}

void ComparisonWindow::show_index(const QModelIndex& index) {
  table_->setCurrentIndex(index);
  table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

void ComparisonWindow::step_finding(int step) {
  const int rows = proxy_->rowCount();
  const int current =
      table_->currentIndex().isValid() ? table_->currentIndex().row() : (step > 0 ? -1 : rows);
  for (int row = current + step; row >= 0 && row < rows; row += step) {
    const QModelIndex index = proxy_->index(row, 0);
    if (!index.data(ComparisonModel::kAgreesRole).toBool()) return show_index(index);
  }
  statusBar()->showMessage(step > 0 ? tr("No finding below") : tr("No finding above"), 3000);
}

}  // namespace parity::gui
