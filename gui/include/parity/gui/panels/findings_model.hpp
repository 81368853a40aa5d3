// FindingsModel: the analyzer's findings, one row each in the analyzer's
// order (most severe first): severity (coloured), rule, rank, title. The
// tooltip and kDetailRole hold the evidence, the next step and where the
// evidence lies on the timeline (see finding_evidence.hpp). With two runs
// open, both runs' findings, A's then B's, with a Run column saying whose.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <vector>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/gui/panels/finding_evidence.hpp"
#include "parity/gui/panels/run_pair.hpp"

namespace parity::gui {

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  // kRun only while two runs are shown.
  enum Column { kSeverity, kRule, kRank, kTitle, kRun };

  explicit FindingsModel(QObject* parent = nullptr);

  // Shows the report's findings (null: no rows).
  void set_report(std::shared_ptr<const analyzer::ProfileReport> report);
  // Shows both runs' findings (null: no rows).
  void set_run_pair(std::shared_ptr<const RunPair> pair);
  const analyzer::Finding& finding(int row) const;
  // On the clock of the finding's run.
  const std::optional<EvidenceLocation>& evidence(int row) const;
  Run run(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    Run run;
    const analyzer::Finding* finding;
    std::optional<EvidenceLocation> evidence;
  };

  void add_rows(Run run, const analyzer::ProfileReport& report);
  QString details(int row) const;

  std::shared_ptr<const analyzer::ProfileReport> report_;  // one run
  std::shared_ptr<const RunPair> pair_;                    // or two
  std::vector<Row> rows_;
};

// The colour that marks a severity: red errors, orange warnings, blue infos.
QColor severity_colour(analyzer::Severity severity);

}  // namespace parity::gui
