// ReportPanel: what the analyzer panels share. Until a report arrives, and
// again when set_report(nullptr) says a new analysis runs, the panel shows
// "Analyzing…"; then its own content, drawn from the report by show_report().
#pragma once

#include <QWidget>
#include <memory>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/gui/view_state.hpp"

class QStackedLayout;

namespace parity::gui {

class ReportPanel : public QWidget {
  Q_OBJECT

 public:
  void set_report(std::shared_ptr<const analyzer::ProfileReport> report);
  const std::shared_ptr<const analyzer::ProfileReport>& report() const { return report_; }

 protected:
  ReportPanel(ViewState& state, QWidget* parent);
  // The widget shown once a report is there; the panel owns it.
  void set_content(QWidget* content);
  // Fills the content from report(), which is not null.
  virtual void show_report() = 0;

  ViewState& state_;

 private:
  std::shared_ptr<const analyzer::ProfileReport> report_;
  QStackedLayout* pages_;
};

}  // namespace parity::gui
