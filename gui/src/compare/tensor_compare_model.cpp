#include "parity/gui/compare/tensor_compare_model.hpp"

#include <algorithm>
#include <sstream>

#include "parity/analyzer/compare/compare_report.hpp"
#include "parity/analyzer/compare/nan_scan_report.hpp"

namespace parity::gui {
namespace {

using analyzer::DumpComparison;
using analyzer::RecordDiff;
using analyzer::RecordStatus;
using importers::DumpRecord;

bool paired(const RecordDiff& d) { return d.a && d.b; }

const DumpRecord& record_b(const DumpComparison& c, const RecordDiff& d) {
  return c.records_b[*d.b];
}

// The first line of `parity nan-scan`'s text report: "first NaN/Inf: RECORD:
// 3 NaN, 0 Inf, first at [0, 1]" or "no NaN or Inf: scanned ...".
QString nan_scan_line(const analyzer::NanScan& scan) {
  std::ostringstream out;
  analyzer::write_nan_scan_report(scan, "text", out);
  const std::string text = out.str();
  return to_qstring(std::string_view(text).substr(0, text.find('\n')));
}

// The row of the record at `position` of one side (A when `side_a`).
std::optional<int> row_of(const DumpComparison& c, bool side_a, std::size_t position) {
  for (std::size_t row = 0; row < c.diffs.size(); ++row) {
    const std::optional<std::size_t>& at = side_a ? c.diffs[row].a : c.diffs[row].b;
    if (at == position) return static_cast<int>(row);
  }
  return std::nullopt;
}

// The row of a scan's first non-finite record, found by its execution index.
std::optional<int> scan_row(const DumpComparison& c, bool side_a, const analyzer::NanScan& scan) {
  if (!scan.first) return std::nullopt;
  const std::vector<DumpRecord>& records = side_a ? c.records_a : c.records_b;
  const auto it = std::find_if(records.begin(), records.end(),
                               [&](const DumpRecord& r) { return r.index == scan.first->index; });
  if (it == records.end()) return std::nullopt;
  return row_of(c, side_a, static_cast<std::size_t>(it - records.begin()));
}

// An index into the diffs as a row.
std::optional<int> as_row(const std::optional<std::size_t>& diff) {
  return diff ? std::optional<int>(static_cast<int>(*diff)) : std::nullopt;
}

std::optional<int> earliest(std::optional<int> x, std::optional<int> y) {
  if (x && y) return std::min(*x, *y);
  return x ? x : y;
}

// The row that shows a structural divergence's record: A's where A has it, B's otherwise.
std::optional<int> structural_row(const DumpComparison& c, std::size_t structural) {
  const analyzer::StructuralDivergence& s = c.structure[structural];
  for (std::size_t row = 0; row < c.diffs.size(); ++row) {
    const RecordDiff& d = c.diffs[row];
    if (s.a ? d.a == s.a : d.b == s.b) return static_cast<int>(row);
  }
  return std::nullopt;
}

// A phase's first divergence: where it sits in A's execution order, its row,
// and its index into `structure` when it is structural.
struct Divergence {
  std::size_t order = 0;
  std::optional<int> row;
  std::optional<std::size_t> structural;
};

std::optional<Divergence> first_of_phase(const DumpComparison& c,
                                         const std::optional<std::size_t>& mismatch,
                                         const std::optional<std::size_t>& structural) {
  if (c.structure_first(mismatch, structural))
    return Divergence{c.structure[*structural].order, structural_row(c, *structural), structural};
  if (!mismatch) return std::nullopt;
  return Divergence{analyzer::order_of_record(*c.diffs[*mismatch].a), as_row(mismatch), {}};
}

}  // namespace

std::vector<ComparisonModel::ColumnInfo> TensorCompareModel::columns() {
  std::vector<ColumnInfo> columns{
      {tr("#"), tr("Execution index in A (\"B n\": a record only B has)"), true, {}},
      {tr("status"), tr("How the pair compares, as `parity compare` says"), false, {}},
      {tr("record"), tr("Name in A, with B's after <-> when it differs"), false, {}},
      {tr("step"), {}, true, {}},
      {tr("phase"), {}, false, {}},
      {tr("role"), {}, false, {}},
      {tr("op"), {}, false, {}},
      {tr("shape"), {}, false, {}},
      {tr("dtype"), {}, false, {}},
  };
  for (ColumnInfo& column : metric_columns()) columns.push_back(std::move(column));
  columns.insert(columns.end(),
                 {
                     {tr("check"), tr("The check that failed, or what was compared"), false, {}},
                     {tr("paired by"), {}, false, {}},
                 });
  return columns;
}

TensorCompareModel::TensorCompareModel(TensorComparison comparison, QObject* parent)
    : ComparisonModel(columns(), parent), comparison_(std::move(comparison)) {
  const DumpComparison& c = comparison_.comparison;
  std::optional<Divergence> first;
  for (const auto& phase : {first_of_phase(c, c.first_forward, c.first_structural_forward),
                            first_of_phase(c, c.first_backward, c.first_structural_backward),
                            first_of_phase(c, c.first_update, c.first_structural_update)})
    if (phase && (!first || phase->order < first->order)) first = phase;
  if (first) {
    first_mismatch_ = first->row;
    first_structural_ = first->structural;
  }
  for (std::size_t k = 0; k < c.structure.size(); ++k)
    if (const std::optional<int> row = structural_row(c, k)) structural_rows_.emplace(*row, k);
  nonfinite_a_ = scan_row(c, true, comparison_.scan_a);
  nonfinite_b_ = scan_row(c, false, comparison_.scan_b);
  first_nonfinite_ = earliest(nonfinite_a_, nonfinite_b_);
}

const analyzer::RecordDiff& TensorCompareModel::record_diff(int row) const {
  return comparison_.comparison.diffs.at(static_cast<std::size_t>(row));
}

const DumpRecord& TensorCompareModel::shown_record(int row) const {
  const RecordDiff& d = record_diff(row);
  const DumpComparison& c = comparison_.comparison;
  return d.a ? c.records_a[*d.a] : c.records_b[*d.b];
}

int TensorCompareModel::rows() const {
  return static_cast<int>(comparison_.comparison.diffs.size());
}

const std::optional<analyzer::TensorMetrics>& TensorCompareModel::metrics(int row) const {
  return record_diff(row).metrics;
}

QString TensorCompareModel::text(int row, int column) const {
  const DumpComparison& c = comparison_.comparison;
  const RecordDiff& d = record_diff(row);
  const DumpRecord& r = shown_record(row);
  switch (column) {
    case kIndex:
      return d.a ? QString::number(r.index) : QStringLiteral("B %1").arg(r.index);
    case kStatus:
      return to_qstring(analyzer::status_name(d.status));
    case kRecord: {
      QString name = to_qstring(r.name);
      if (paired(d) && record_b(c, d).name != r.name)
        name += QStringLiteral(" <-> ") + to_qstring(record_b(c, d).name);
      return name;
    }
    case kStep:
      return QString::number(r.step);
    case kPhase:
      return to_qstring(r.phase);
    case kRole:
      return to_qstring(r.role);
    case kOp:
      return to_qstring(r.op);
    case kShape: {
      QString shape = to_qstring(importers::shape_to_string(r.shape));
      if (paired(d) && record_b(c, d).shape != r.shape)
        shape +=
            QStringLiteral(" vs ") + to_qstring(importers::shape_to_string(record_b(c, d).shape));
      return shape;
    }
    case kDtype: {
      QString dtype = to_qstring(dtype_name(r.dtype));
      if (paired(d) && record_b(c, d).dtype != r.dtype)
        dtype += QStringLiteral(" vs ") + to_qstring(dtype_name(record_b(c, d).dtype));
      return dtype;
    }
    case kCheck:
      if (d.status == RecordStatus::kMismatch) return to_qstring(d.failure);
      if (const auto it = structural_rows_.find(row); it != structural_rows_.end())
        return QStringLiteral("structure: ") +
               to_qstring(analyzer::kind_name(c.structure[it->second].kind));
      if (!paired(d)) return to_qstring(analyzer::status_name(d.status));
      return d.stats ? tr("statistics only") : tr("values");
    case kPairedBy:
      return to_qstring(d.paired_by);
    default:
      return {};
  }
}

std::optional<double> TensorCompareModel::number(int row, int column) const {
  // Sorting by # brings back the analyzer's order: A's records, then B's.
  if (column == kIndex) return row;
  if (column == kStep) return static_cast<double>(shown_record(row).step);
  return std::nullopt;
}

QString TensorCompareModel::tooltip(int row) const {
  const DumpComparison& c = comparison_.comparison;
  const RecordDiff& d = record_diff(row);
  QStringList lines{to_qstring(c.describe(d)), to_qstring(analyzer::status_name(d.status))};
  if (!d.failure.empty()) lines << to_qstring(d.failure);
  if (d.metrics) lines << metrics_lines(*d.metrics, shown_record(row).shape);
  if (const auto it = structural_rows_.find(row); it != structural_rows_.end())
    lines << tr("structure: %1").arg(to_qstring(c.structure[it->second].message));
  if (row == first_mismatch_) lines << tr("the first divergence in execution order");
  if (row == nonfinite_a_) lines << QStringLiteral("A: ") + nan_scan_line(comparison_.scan_a);
  if (row == nonfinite_b_) lines << QStringLiteral("B: ") + nan_scan_line(comparison_.scan_b);
  return lines.join(QLatin1Char('\n'));
}

bool TensorCompareModel::agrees(int row) const {
  // As in `parity compare`: a record with no counterpart is a warning unless
  // it is a structural divergence (missing from a step and phase both dumped).
  return record_diff(row).status != RecordStatus::kMismatch && !structural_rows_.count(row);
}

ComparisonModel::Tone TensorCompareModel::tone(int row) const {
  if (row == first_mismatch_) return Tone::kFirstMismatch;
  if (row == first_nonfinite_) return Tone::kFirstNonFinite;
  if (!agrees(row)) return Tone::kFinding;
  return paired(record_diff(row)) ? Tone::kNormal : Tone::kMuted;
}

QString TensorCompareModel::filter_text(int row) const {
  const DumpComparison& c = comparison_.comparison;
  const RecordDiff& d = record_diff(row);
  const DumpRecord& r = shown_record(row);
  QStringList words{to_qstring(r.name), to_qstring(analyzer::status_name(d.status)),
                    to_qstring(r.phase), to_qstring(r.role), to_qstring(r.op)};
  if (paired(d)) words << to_qstring(record_b(c, d).name);
  return words.join(QLatin1Char(' '));
}

QString TensorCompareModel::summary() const {
  const DumpComparison& c = comparison_.comparison;
  QStringList lines{tr("%1: %2 pairs compared, %3 match, %4 mismatch, %5 only in A, %6 only in B; "
                       "%7 compared by statistics only")
                        .arg(c.passed() ? tr("PASS") : tr("FAIL"))
                        .arg(c.pairs())
                        .arg(c.count(RecordStatus::kMatch))
                        .arg(c.count(RecordStatus::kMismatch))
                        .arg(c.count(RecordStatus::kOnlyInA))
                        .arg(c.count(RecordStatus::kOnlyInB))
                        .arg(c.statistics_only()),
                    to_qstring(analyzer::first_mismatch_line(c))};
  // The analyzer names the first mismatch of each phase; an earlier one (an
  // update before the next step's forward) is where the runs part ways.
  if (first_structural_ && first_structural_ != c.first_structural_forward) {
    lines << tr("first divergence in execution order: structure: %1")
                 .arg(to_qstring(c.structure[*first_structural_].message));
  } else if (!first_structural_ && first_mismatch_ && first_mismatch_ != as_row(c.first_forward)) {
    const RecordDiff& d = record_diff(*first_mismatch_);
    lines << tr("first divergence in execution order: %1: %2")
                 .arg(to_qstring(c.describe(d)), to_qstring(d.failure));
  }
  lines << QStringLiteral("A: ") + nan_scan_line(comparison_.scan_a)
        << QStringLiteral("B: ") + nan_scan_line(comparison_.scan_b);
  lines << tr("A: %1   B: %2   pairing: %3")
               .arg(to_qstring(c.path_a), to_qstring(c.path_b), to_qstring(c.pairing));
  return lines.join(QLatin1Char('\n'));
}

}  // namespace parity::gui
