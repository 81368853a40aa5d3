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
  report_ = std::move(report);
  if (report_) show_report();
  pages_->setCurrentIndex(report_ ? 1 : 0);
}

}  // namespace parity::gui
