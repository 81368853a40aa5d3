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
  pair_.reset();
  rows_.clear();
  if (report_) add_rows(Run::kA, *report_);
  endResetModel();
}

void FindingsModel::set_run_pair(std::shared_ptr<const RunPair> pair) {
  beginResetModel();
  report_.reset();
  pair_ = std::move(pair);
  rows_.clear();
  if (pair_) {
    add_rows(Run::kA, *pair_->a);
    add_rows(Run::kB, *pair_->b);
  }
  endResetModel();
}

void FindingsModel::add_rows(Run run, const analyzer::ProfileReport& report) {
  for (const analyzer::Finding& finding : report.findings)
    rows_.push_back({run, &finding, locate_evidence(finding, report)});
}

const analyzer::Finding& FindingsModel::finding(int row) const {
  return *rows_.at(static_cast<std::size_t>(row)).finding;
}

const std::optional<EvidenceLocation>& FindingsModel::evidence(int row) const {
  return rows_.at(static_cast<std::size_t>(row)).evidence;
}

Run FindingsModel::run(int row) const { return rows_.at(static_cast<std::size_t>(row)).run; }

int FindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return pair_ ? kRun + 1 : kRun;
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
    case kRun:
      if (role == Qt::DisplayRole || role == kSortRole) return QString(run_name(run(index.row())));
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
    case kRun:
      return tr("Run");
  }
  return {};
}

QString FindingsModel::details(int row) const {
  const analyzer::Finding& f = finding(row);
  QString out = QStringLiteral("<p><b>%1</b></p><p><span style=\"color:%2\">%3</span> &middot; %4")
                    .arg(html(f.title), severity_colour(f.severity).name(),
                         text(std::string(analyzer::severity_name(f.severity))), html(f.rule));
  if (f.rank) out += QStringLiteral(" &middot; rank %1").arg(*f.rank);
  if (pair_) {
    const Run of = run(row);
    out += QStringLiteral(" &middot; run %1 (%2)")
               .arg(QString(run_name(of)),
                    html(of == Run::kA ? pair_->diff.a_path : pair_->diff.b_path));
  }
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
