#include "panels/op_table_panel.hpp"

#include <QHeaderView>
#include <QLineEdit>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "parity/gui/panels/name_filter_proxy.hpp"
#include "parity/gui/panels/report_rank.hpp"

namespace parity::gui {

OpTablePanel::OpTablePanel(ViewState& state, QWidget* parent)
    : ReportPanel(state, parent), filter_(new QLineEdit), tabs_(new QTabWidget) {
  filter_->setPlaceholderText(tr("Filter by name"));
  filter_->setClearButtonEnabled(true);
  filter_->setText(state_.name_filter());
  connect(filter_, &QLineEdit::textChanged, &state_, &ViewState::set_name_filter);
  connect(&state_, &ViewState::name_filter_changed, this, [this] {
    if (filter_->text() != state_.name_filter()) filter_->setText(state_.name_filter());
  });

  using Stats = OpStatsModel::Table;
  tables_ = {make_tab(new OpStatsModel(Stats::kOps, this), tr("Operators")),
             make_tab(new OpStatsModel(Stats::kLayers, this), tr("Layers")),
             make_tab(new OpStatsModel(Stats::kKernels, this), tr("Kernels"))};
  for (const auto& tab : tables_)
    tab.view->sortByColumn(tab.model->ranking_column(), Qt::DescendingOrder);
  using Diff = OpDiffModel::Table;
  diff_tables_ = {make_tab(new OpDiffModel(Diff::kOps, this), tr("Operators A | B")),
                  make_tab(new OpDiffModel(Diff::kKernels, this), tr("Kernels A | B"))};
  // diff-trace's order (largest difference either way first) until a header is clicked.
  for (const auto& tab : diff_tables_)
    tab.view->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);

  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(filter_);
  layout->addWidget(tabs_, 1);
  set_content(content);
}

template <class Model>
OpTablePanel::Tab<Model> OpTablePanel::make_tab(Model* model, const QString& title) {
  auto* proxy = new NameFilterProxy(state_, Model::kNameColumn, this);
  proxy->setSourceModel(model);
  auto* view = new QTableView;
  view->setModel(proxy);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setAlternatingRowColors(true);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setSectionResizeMode(Model::kNameColumn, QHeaderView::Stretch);
  view->setSortingEnabled(true);
  connect(view, &QTableView::doubleClicked, this, [this, model, proxy](const QModelIndex& index) {
    state_.set_name_filter(model->name(proxy->mapToSource(index).row()));
  });
  tabs_->addTab(view, title);
  return {model, proxy, view};
}

QTableView* OpTablePanel::view(OpStatsModel::Table table) const {
  return tables_[static_cast<std::size_t>(table)].view;
}

bool OpTablePanel::tab_visible(OpStatsModel::Table table) const {
  return tabs_->isTabVisible(tabs_->indexOf(view(table)));
}

QTableView* OpTablePanel::diff_view(OpDiffModel::Table table) const {
  return diff_tables_[static_cast<std::size_t>(table)].view;
}

bool OpTablePanel::diff_tab_visible(OpDiffModel::Table table) const {
  return tabs_->isTabVisible(tabs_->indexOf(diff_view(table)));
}

void OpTablePanel::set_rank(std::optional<std::int64_t> rank) {
  rank_ = rank;
  if (report()) show_report();
}

void OpTablePanel::show_report() {
  // An alias of the report: the models keep it alive.
  const std::shared_ptr<const analyzer::OpAnalysis> ops(report(),
                                                        &report_rank(*report(), rank_).ops);
  const bool two_runs = run_pair() != nullptr;
  for (const auto& tab : tables_) {
    tab.model->set_analysis(ops);
    // Operators always have a tab; layers and kernels only when the trace has them.
    tabs_->setTabVisible(tabs_->indexOf(tab.view),
                         !two_runs && (tab.model->table() == OpStatsModel::Table::kOps ||
                                       tab.model->rowCount() > 0));
  }
  const std::shared_ptr<const analyzer::TraceDiff> diff =
      two_runs ? std::shared_ptr<const analyzer::TraceDiff>(run_pair(), &run_pair()->diff)
               : nullptr;
  for (const auto& tab : diff_tables_) {
    tab.model->set_diff(diff);
    tabs_->setTabVisible(
        tabs_->indexOf(tab.view),
        two_runs && (tab.model->table() == OpDiffModel::Table::kOps || tab.model->rowCount() > 0));
  }
  // From one run to two or back: the first tab of the tables now shown.
  if (shows_diff_ != two_runs)
    tabs_->setCurrentWidget(two_runs ? diff_tables_.front().view : tables_.front().view);
  shows_diff_ = two_runs;
}

}  // namespace parity::gui
