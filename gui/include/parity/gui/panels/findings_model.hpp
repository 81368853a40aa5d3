// FindingsModel: the analyzer's findings, one row each in the analyzer's
// order (most severe first): severity (coloured), rule, rank, title. The
// tooltip and kDetailRole hold the evidence, the next step and where the
// evidence lies on the timeline (see finding_evidence.hpp).
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <vector>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/gui/panels/finding_evidence.hpp"

namespace parity::gui {

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kSeverity, kRule, kRank, kTitle, kColumns };

  explicit FindingsModel(QObject* parent = nullptr);

  // Shows the report's findings (null: no rows).
  void set_report(std::shared_ptr<const analyzer::ProfileReport> report);
  const analyzer::Finding& finding(int row) const;
  const std::optional<EvidenceLocation>& evidence(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QString details(int row) const;

  std::shared_ptr<const analyzer::ProfileReport> report_;
  std::vector<std::optional<EvidenceLocation>> evidence_;  // by row
};

// The colour that marks a severity: red errors, orange warnings, blue infos.
QColor severity_colour(analyzer::Severity severity);

}  // namespace parity::gui
