// OpTablePanel: the analyzer's operator statistics of one rank (the focus
// rank unless told otherwise) in tabs: host ops, and layers and GPU kernels
// when the trace has them. Columns sort numerically; the rows follow
// ViewState's name filter, which the line edit above the tabs sets; a
// double-click on a row sets the filter to that row's name, so every view
// (the timeline highlights it) narrows to it. With two runs, the tabs are
// `parity diff-trace`'s tables instead: ops and GPU kernels with run A's and
// run B's calls and time per step side by side, the difference and change.
#pragma once

#include <array>
#include <optional>

#include "panels/report_panel.hpp"
#include "parity/gui/panels/op_diff_model.hpp"
#include "parity/gui/panels/op_stats_model.hpp"

class QLineEdit;
class QTabWidget;
class QTableView;

namespace parity::gui {

class NameFilterProxy;

class OpTablePanel : public ReportPanel {
  Q_OBJECT

 public:
  explicit OpTablePanel(ViewState& state, QWidget* parent = nullptr);

  // Shows this rank's statistics (none, or a rank the report lacks: the focus rank).
  void set_rank(std::optional<std::int64_t> rank);
  // The view of `table`; its tab is hidden while the analysis has no rows for it.
  QTableView* view(OpStatsModel::Table table) const;
  bool tab_visible(OpStatsModel::Table table) const;
  // The two runs' table of `table`; its tab shows only with two runs.
  QTableView* diff_view(OpDiffModel::Table table) const;
  bool diff_tab_visible(OpDiffModel::Table table) const;

 private:
  template <class Model>
  struct Tab {
    Model* model;
    NameFilterProxy* proxy;
    QTableView* view;
  };

  void show_report() override;
  template <class Model>
  Tab<Model> make_tab(Model* model, const QString& title);

  std::optional<std::int64_t> rank_;
  QLineEdit* filter_;
  QTabWidget* tabs_;
  std::array<Tab<OpStatsModel>, 3> tables_;      // by OpStatsModel::Table
  std::array<Tab<OpDiffModel>, 2> diff_tables_;  // by OpDiffModel::Table
  bool shows_diff_ = false;                      // the tabs are diff_tables_' (two runs)
};

}  // namespace parity::gui
