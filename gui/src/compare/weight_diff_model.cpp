#include "parity/gui/compare/weight_diff_model.hpp"

#include <array>
#include <cmath>

#include "parity/analyzer/report_format.hpp"

namespace parity::gui {
namespace {

using analyzer::DiffStatus;
using analyzer::ParameterDiff;

constexpr std::array kStatuses{DiffStatus::kEqual,        DiffStatus::kClose,
                               DiffStatus::kMismatch,     DiffStatus::kShapeMismatch,
                               DiffStatus::kDtypeDiffers, DiffStatus::kOnlyInA,
                               DiffStatus::kOnlyInB,      DiffStatus::kNoCounterpart};

bool paired(const ParameterDiff& p) { return !p.name_a.empty() && !p.name_b.empty(); }

// One side's value, or "A vs B" when a pair's sides differ.
QString sides(const QString& a, const QString& b) {
  if (a.isEmpty()) return b;
  if (b.isEmpty() || a == b) return a;
  return a + QStringLiteral(" vs ") + b;
}

QString shape_text(const ParameterDiff& p) {
  const auto side = [](const std::string& name, const std::vector<std::int64_t>& shape) {
    return name.empty() ? QString() : to_qstring(importers::shape_to_string(shape));
  };
  return sides(side(p.name_a, p.shape_a), side(p.name_b, p.shape_b));
}

QString dtype_text(const ParameterDiff& p) {
  const auto side = [](const std::optional<DType>& dtype) {
    return dtype ? to_qstring(dtype_name(*dtype)) : QString();
  };
  return sides(side(p.dtype_a), side(p.dtype_b));
}

QString paired_by_text(const ParameterDiff& p) {
  if (!paired(p)) return {};
  QString text = to_qstring(p.paired_by);
  if (p.confidence < 1) text += QStringLiteral(" (%1)").arg(p.confidence, 0, 'f', 2);
  return text;
}

QString note_text(const ParameterDiff& p) {
  if (!p.rival_b.empty())
    return WeightDiffModel::tr("ambiguous: %1 fits as well").arg(to_qstring(p.rival_b));
  return to_qstring(p.note);
}

}  // namespace

std::vector<ComparisonModel::ColumnInfo> WeightDiffModel::columns() {
  std::vector<ColumnInfo> columns{
      {tr("#"), tr("Position in the diff: the pairs in A's order, then the unpaired"), true, {}},
      {tr("status"), tr("How the pair compares, as `parity diff` says"), false, {}},
      {tr("A"), tr("Name in checkpoint A"), false, {}},
      {tr("B"), tr("Name in checkpoint B"), false, {}},
      {tr("shape"), {}, false, {}},
      {tr("dtype"), {}, false, {}},
  };
  for (ColumnInfo& column : metric_columns()) columns.push_back(std::move(column));
  columns.insert(
      columns.end(),
      {
          {tr("within tol"), tr("Share of elements with |a - b| <= atol + rtol |b|"), true, {}},
          {tr("tolerance"), {}, false, {}},
          {tr("paired by"), tr("The name map, or structure, and a confidence below 1"), false, {}},
          {tr("note"), {}, false, {}},
      });
  return columns;
}

WeightDiffModel::WeightDiffModel(analyzer::WeightDiff diff, QObject* parent)
    : ComparisonModel(columns(), parent), diff_(std::move(diff)) {
  for (int row = 0; row < rows() && !first_mismatch_; ++row)
    if (!agrees(row)) first_mismatch_ = row;
}

const analyzer::ParameterDiff& WeightDiffModel::parameter(int row) const {
  return diff_.parameters.at(static_cast<std::size_t>(row));
}

int WeightDiffModel::rows() const { return static_cast<int>(diff_.parameters.size()); }

const std::optional<analyzer::TensorMetrics>& WeightDiffModel::metrics(int row) const {
  return parameter(row).metrics;
}

QString WeightDiffModel::text(int row, int column) const {
  const ParameterDiff& p = parameter(row);
  switch (column) {
    case kIndex:
      return QString::number(row);
    case kStatus:
      return to_qstring(analyzer::status_name(p.status));
    case kNameA:
      return to_qstring(p.name_a);
    case kNameB:
      return to_qstring(p.name_b);
    case kShape:
      return shape_text(p);
    case kDtype:
      return dtype_text(p);
    case kWithinTolerance:
      if (!p.metrics) return {};
      // Rounded down, so one bad element in 150,000 reads 99.99%, never 100.00%.
      return QStringLiteral("%1%").arg(
          std::floor(10'000 * p.metrics->share_within_tolerance()) / 100, 0, 'f', 2);
    case kTolerance:
      return paired(p) ? to_qstring(analyzer::to_string(p.tolerance)) : QString();
    case kPairedBy:
      return paired_by_text(p);
    case kNote:
      return note_text(p);
    default:
      return {};
  }
}

std::optional<double> WeightDiffModel::number(int row, int column) const {
  const ParameterDiff& p = parameter(row);
  if (column == kIndex) return row;
  if (column == kWithinTolerance && p.metrics) return p.metrics->share_within_tolerance();
  return std::nullopt;
}

QString WeightDiffModel::tooltip(int row) const {
  const ParameterDiff& p = parameter(row);
  QStringList lines{to_qstring(analyzer::status_name(p.status))};
  if (!p.name_a.empty()) lines << tr("A: %1").arg(to_qstring(p.name_a));
  if (!p.name_b.empty()) lines << tr("B: %1").arg(to_qstring(p.name_b));
  if (p.metrics) lines << metrics_lines(*p.metrics, p.shape_a);
  if (const QString note = note_text(p); !note.isEmpty()) lines << note;
  return lines.join(QLatin1Char('\n'));
}

bool WeightDiffModel::agrees(int row) const {
  return analyzer::status_agrees(parameter(row).status);
}

ComparisonModel::Tone WeightDiffModel::tone(int row) const {
  if (row == first_mismatch_) return Tone::kFirstMismatch;
  if (!agrees(row)) return Tone::kFinding;
  return parameter(row).status == DiffStatus::kNoCounterpart ? Tone::kMuted : Tone::kNormal;
}

QString WeightDiffModel::filter_text(int row) const {
  const ParameterDiff& p = parameter(row);
  return to_qstring(p.name_a) + QLatin1Char(' ') + to_qstring(p.name_b) + QLatin1Char(' ') +
         to_qstring(analyzer::status_name(p.status));
}

QString WeightDiffModel::summary() const {
  QStringList counts;
  std::size_t findings = 0;
  for (const DiffStatus status : kStatuses) {
    const std::size_t count = diff_.count(status);
    if (!analyzer::status_agrees(status)) findings += count;
    if (count > 0)
      counts << QStringLiteral("%1 %2").arg(count).arg(to_qstring(analyzer::status_name(status)));
  }
  const QString verdict = findings == 0 ? tr("AGREE") : tr("DIFFER (%1 findings)").arg(findings);
  QStringList lines{tr("%1: %2; %3 ambiguous pairs")
                        .arg(verdict, counts.join(QStringLiteral(", ")))
                        .arg(diff_.ambiguous_pairs())};
  if (first_mismatch_) {
    const ParameterDiff& p = parameter(*first_mismatch_);
    lines << tr("first finding: %1 (%2)")
                 .arg(to_qstring(p.name_a.empty() ? p.name_b : p.name_a),
                      to_qstring(status_name(p.status)));
  }
  lines << tr("A: %1 (%2)   B: %3 (%4)   pairing: %5")
               .arg(to_qstring(diff_.path_a), to_qstring(diff_.format_a), to_qstring(diff_.path_b),
                    to_qstring(diff_.format_b), to_qstring(diff_.pairing));
  return lines.join(QLatin1Char('\n'));
}

}  // namespace parity::gui
