#include "panels/findings_panel.hpp"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>

#include "parity/gui/panels/findings_model.hpp"
#include "parity/gui/panels/item_roles.hpp"

namespace parity::gui {

FindingsPanel::FindingsPanel(ViewState& state, QWidget* parent)
    : ReportPanel(state, parent),
      model_(new FindingsModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      view_(new QTableView),
      details_(new QTextBrowser) {
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(kSortRole);
  view_->setModel(proxy_);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setSectionResizeMode(FindingsModel::kTitle, QHeaderView::Stretch);
  view_->setSortingEnabled(true);
  view_->sortByColumn(FindingsModel::kSeverity, Qt::DescendingOrder);

  const auto source_row = [this](const QModelIndex& index) {
    return proxy_->mapToSource(index).row();
  };
  connect(view_, &QTableView::clicked, this,
          [this, source_row](const QModelIndex& index) { activate_finding(source_row(index)); });
  connect(view_, &QTableView::activated, this,
          [this, source_row](const QModelIndex& index) { activate_finding(source_row(index)); });
  // Moving through the list with the keyboard shows details without moving the timeline.
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, source_row](const QModelIndex& current) {
            if (current.isValid()) show_details(source_row(current));
          });

  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(view_);
  splitter->addWidget(details_);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 1);
  set_content(splitter);
}

QString FindingsPanel::details() const { return details_->toPlainText(); }

void FindingsPanel::show_report() {
  if (run_pair())
    model_->set_run_pair(run_pair());
  else
    model_->set_report(report());
  details_->setHtml(model_->rowCount() == 0 ? tr("No findings: every rule passed.")
                                            : tr("Click a finding for its evidence."));
}

void FindingsPanel::show_details(int row) {
  details_->setHtml(model_->index(row, 0).data(kDetailRole).toString());
}

void FindingsPanel::activate_finding(int row) {
  if (row < 0 || row >= model_->rowCount()) return;
  view_->setCurrentIndex(proxy_->mapFromSource(model_->index(row, 0)));
  show_details(row);
  if (const auto& evidence = model_->evidence(row))
    show_range_of(model_->run(row), evidence->range);
}

}  // namespace parity::gui
