#include "parity/gui/panels/findings_model.hpp"

#include <QColor>

#include "parity/analyzer/profile/units.hpp"
#include "parity/gui/panels/item_roles.hpp"

namespace parity::gui {

namespace {

QString text(const std::string& utf8) { return QString::fromStdString(utf8); }
QString html(const std::string& utf8) { return text(utf8).toHtmlEscaped(); }

QString rank_text(const std::optional<std::int64_t>& rank) {
  return rank ? QString::number(*rank) : QStringLiteral("all");
}

}  // namespace

QColor severity_colour(analyzer::Severity severity) {
  switch (severity) {
    case analyzer::Severity::kError:
      return QColor(0xc6, 0x28, 0x28);
    case analyzer::Severity::kWarning:
      return QColor(0xef, 0x6c, 0x00);
    case analyzer::Severity::kInfo:
      break;
  }
  return QColor(0x15, 0x65, 0xc0);
}

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::set_report(std::shared_ptr<const analyzer::ProfileReport> report) {
  beginResetModel();
  report_ = std::move(report);
  evidence_.clear();
  if (report_)
    for (const analyzer::Finding& finding : report_->findings)
      evidence_.push_back(locate_evidence(finding, *report_));
  endResetModel();
}

const analyzer::Finding& FindingsModel::finding(int row) const {
  return report_->findings.at(static_cast<std::size_t>(row));
}

const std::optional<EvidenceLocation>& FindingsModel::evidence(int row) const {
  return evidence_.at(static_cast<std::size_t>(row));
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(evidence_.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const analyzer::Finding& f = finding(index.row());
  if (role == Qt::ToolTipRole || role == kDetailRole) return details(index.row());
  switch (index.column()) {
    case kSeverity:
      if (role == Qt::DisplayRole) return text(std::string(analyzer::severity_name(f.severity)));
      if (role == kSortRole) return static_cast<int>(f.severity);
      if (role == Qt::DecorationRole) return severity_colour(f.severity);
      break;
    case kRule:
      if (role == Qt::DisplayRole || role == kSortRole) return text(f.rule);
      break;
    case kRank:
      if (role == Qt::DisplayRole) return rank_text(f.rank);
      if (role == kSortRole) return static_cast<qlonglong>(f.rank.value_or(-1));
      break;
    case kTitle:
      if (role == Qt::DisplayRole || role == kSortRole) return text(f.title);
      break;
  }
  return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kSeverity:
      return tr("Severity");
    case kRule:
      return tr("Rule");
    case kRank:
      return tr("Rank");
    case kTitle:
      return tr("Finding");
  }
  return {};
}

QString FindingsModel::details(int row) const {
  const analyzer::Finding& f = finding(row);
  QString out = QStringLiteral("<p><b>%1</b></p><p><span style=\"color:%2\">%3</span> &middot; %4")
                    .arg(html(f.title), severity_colour(f.severity).name(),
                         text(std::string(analyzer::severity_name(f.severity))), html(f.rule));
  if (f.rank) out += QStringLiteral(" &middot; rank %1").arg(*f.rank);
  out += QStringLiteral("</p>");
  if (!f.evidence.empty()) {
    out += QStringLiteral("<ul>");
    for (const std::string& line : f.evidence) out += QStringLiteral("<li>%1</li>").arg(html(line));
    out += QStringLiteral("</ul>");
  }
  if (!f.next_step.empty())
    out += QStringLiteral("<p><b>Next step:</b> %1</p>").arg(html(f.next_step));
  if (const auto& where = evidence(row))
    out += QStringLiteral("<p><i>On the timeline: step %1 of rank %2 (%3).</i></p>")
               .arg(where->step)
               .arg(where->rank)
               .arg(text(analyzer::format_duration(static_cast<double>(where->range.length_ns()))));
  else
    out += QStringLiteral(
        "<p><i>Not one place on the timeline: it is about the run as a whole.</i></p>");
  return out;
}

}  // namespace parity::gui
