// DiffReportPanel: with two runs open, `parity diff-trace A B`'s report of
// them (its Markdown rendering): the verdict on B against A, the steady-state
// step breakdown side by side, the ops and kernels that differ most, and the
// regression checks. With one run it says that it needs two.
#pragma once

#include "panels/report_panel.hpp"

class QTextBrowser;

namespace parity::gui {

class DiffReportPanel : public ReportPanel {
  Q_OBJECT

 public:
  // The op and kernel tables' rows, as diff-trace's --rows default.
  static constexpr std::size_t kRows = 20;

  explicit DiffReportPanel(ViewState& state, QWidget* parent = nullptr);

  QString text() const;

 private:
  void show_report() override;

  QTextBrowser* browser_;
};

}  // namespace parity::gui
