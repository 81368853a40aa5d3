#include "panels/diff_report_panel.hpp"

#include <QTextBrowser>
#include <sstream>

namespace parity::gui {

DiffReportPanel::DiffReportPanel(ViewState& state, QWidget* parent)
    : ReportPanel(state, parent), browser_(new QTextBrowser) {
  set_content(browser_);
}

QString DiffReportPanel::text() const { return browser_->toPlainText(); }

void DiffReportPanel::show_report() {
  if (!run_pair()) {
    browser_->setPlainText(tr("Open two runs (parity-view A.db B.db) to compare them."));
    return;
  }
  std::ostringstream markdown;
  analyzer::write_trace_diff(run_pair()->diff, "md", markdown, kRows);
  browser_->setMarkdown(QString::fromStdString(markdown.str()));
}

}  // namespace parity::gui
