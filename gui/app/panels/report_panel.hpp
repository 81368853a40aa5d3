// ReportPanel: what the analyzer panels share. Until a report arrives, and
// again when set_report(nullptr) says a new analysis runs, the panel shows
// "Analyzing…"; then its own content, drawn from the report by show_report().
// With two separate runs open, set_run_pair() gives it both runs' analyses:
// report() is then run A's, run_pair() holds both and their diff.
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/gui/panels/run_pair.hpp"
#include "parity/gui/view_state.hpp"

class QStackedLayout;

namespace parity::gui {

class ReportPanel : public QWidget {
  Q_OBJECT

 public:
  void set_report(std::shared_ptr<const analyzer::ProfileReport> report);
  void set_run_pair(std::shared_ptr<const RunPair> pair);
  const std::shared_ptr<const analyzer::ProfileReport>& report() const { return report_; }
  // Null unless two runs are shown.
  const std::shared_ptr<const RunPair>& run_pair() const { return pair_; }
  // Where run B's clock sits on the timeline's (run A's): B's time + offset.
  void set_run_b_offset(std::int64_t offset_ns) { run_b_offset_ns_ = offset_ns; }

 protected:
  ReportPanel(ViewState& state, QWidget* parent);
  // The widget shown once a report is there; the panel owns it.
  void set_content(QWidget* content);
  // Fills the content from report(), which is not null.
  virtual void show_report() = 0;
  // Shows `range`, on `run`'s clock, on the timeline.
  void show_range_of(Run run, TimeWindow range);

  ViewState& state_;

 private:
  void show_reports(std::shared_ptr<const analyzer::ProfileReport> report,
                    std::shared_ptr<const RunPair> pair);

  std::shared_ptr<const analyzer::ProfileReport> report_;
  std::shared_ptr<const RunPair> pair_;
  std::int64_t run_b_offset_ns_ = 0;
  QStackedLayout* pages_;
};

}  // namespace parity::gui
