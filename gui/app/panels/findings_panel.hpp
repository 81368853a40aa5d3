// FindingsPanel: the analyzer's findings (every rank's), most severe first,
// above a pane with the selected finding's evidence and next step. Clicking
// a finding whose evidence lies on the timeline (see finding_evidence.hpp)
// shows that time range there. With two runs, both runs' findings, each
// labelled A or B, and a click shows the evidence in its own run's trace.
#pragma once

#include "panels/report_panel.hpp"

class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace parity::gui {

class FindingsModel;

class FindingsPanel : public ReportPanel {
  Q_OBJECT

 public:
  explicit FindingsPanel(ViewState& state, QWidget* parent = nullptr);

  const FindingsModel& model() const { return *model_; }
  QTableView* view() const { return view_; }
  // The detail pane's text.
  QString details() const;
  // Selects finding `row` (in the report's order), shows its details and
  // its evidence on the timeline: what clicking it does.
  void activate_finding(int row);

 private:
  void show_report() override;
  void show_details(int row);

  FindingsModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QTextBrowser* details_;
};

}  // namespace parity::gui
