#include "panels/report_panel.hpp"

#include <QLabel>
#include <QStackedLayout>

namespace parity::gui {

ReportPanel::ReportPanel(ViewState& state, QWidget* parent)
    : QWidget(parent), state_(state), pages_(new QStackedLayout(this)) {
  auto* analyzing = new QLabel(tr("Analyzing…"), this);
  analyzing->setObjectName(QStringLiteral("analyzing"));
  analyzing->setAlignment(Qt::AlignCenter);
  pages_->addWidget(analyzing);
}

void ReportPanel::set_content(QWidget* content) { pages_->addWidget(content); }

void ReportPanel::set_report(std::shared_ptr<const analyzer::ProfileReport> report) {
  show_reports(std::move(report), nullptr);
}

void ReportPanel::set_run_pair(std::shared_ptr<const RunPair> pair) {
  std::shared_ptr<const analyzer::ProfileReport> a = pair ? pair->a : nullptr;
  show_reports(std::move(a), std::move(pair));
}

void ReportPanel::show_reports(std::shared_ptr<const analyzer::ProfileReport> report,
                               std::shared_ptr<const RunPair> pair) {
  report_ = std::move(report);
  pair_ = std::move(pair);
  if (report_) show_report();
  pages_->setCurrentIndex(report_ ? 1 : 0);
}

void ReportPanel::show_range_of(Run run, TimeWindow range) {
  if (run == Run::kB) range = {range.start_ns + run_b_offset_ns_, range.end_ns + run_b_offset_ns_};
  state_.show_range(range);
}

}  // namespace parity::gui
