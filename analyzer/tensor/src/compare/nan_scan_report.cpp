#include "parity/analyzer/compare/nan_scan_report.hpp"

#include "parity/analyzer/compare/record_json.hpp"
#include "parity/analyzer/element_index.hpp"
#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

using importers::DumpRecord;

// "batch_norm_relu in layer2.0.bn1"; a plain .npy directory knows no op.
std::string producer(const DumpRecord& record) {
  return record.op.empty() ? record.module : record.op + " in " + record.module;
}

std::string first_element_text(const NanScan& scan) {
  return scan.counts.first_element ? element_index(*scan.counts.first_element, scan.first->shape)
                                   : "unknown (the dump holds statistics only)";
}

// Titled by what it found, so that the first line of the text says it.
Document nan_scan_document(const NanScan& scan) {
  Document doc;
  const std::string scanned = std::to_string(scan.records) + " records of " + scan.path + " (" +
                              std::to_string(scan.arrays_read) + " arrays read)";
  if (!scan.found()) {
    doc.heading("no NaN or Inf: scanned " + scanned, 1);
    return doc;
  }
  const DumpRecord& first = *scan.first;
  doc.heading("first NaN/Inf: " + first.describe() + ": " + std::to_string(scan.counts.nan) +
                  " NaN, " + std::to_string(scan.counts.inf) + " Inf, first at " +
                  first_element_text(scan),
              1);
  std::string where;
  if (!first.phase.empty())
    where += "step " + std::to_string(first.step) + ", phase " + first.phase + ", ";
  where += "module " + first.module;
  if (!first.op.empty()) where += ", op " + first.op;
  if (!first.role.empty()) where += ", role " + first.role;
  where +=
      ", " + std::string(dtype_name(first.dtype)) + ' ' + importers::shape_to_string(first.shape);
  doc.fields(
      {{"record", where},
       {"culprit", producer(first) + ": its output holds NaN/Inf while " +
                       (scan.before ? "its input side was clean (" + scan.before->describe() +
                                          ", executed just before it, holds none)"
                                    : std::string("nothing ran before it (the first "
                                                  "record of the dump)"))},
       {"later", std::to_string(scan.later_nonfinite) + " of " +
                     std::to_string(scan.later_records) + " later records hold NaN or Inf"},
       {"scanned", scanned}});
  return doc;
}

nlohmann::ordered_json nan_scan_json(const NanScan& scan) {
  nlohmann::ordered_json document{{"found", scan.found()}};
  if (scan.found()) {
    nlohmann::ordered_json first = record_json(*scan.first);
    first["nan"] = scan.counts.nan;
    first["inf"] = scan.counts.inf;
    first["first_index"] =
        scan.counts.first_element
            ? nlohmann::ordered_json(multi_index(*scan.counts.first_element, scan.first->shape))
            : nlohmann::ordered_json();
    document["first"] = std::move(first);
    document["culprit"] = {{"module", scan.first->module}, {"op", scan.first->op}};
    document["clean_before"] = scan.before ? record_json(*scan.before) : nlohmann::ordered_json();
    document["later_records"] = scan.later_records;
    document["later_nonfinite"] = scan.later_nonfinite;
  }
  document["path"] = scan.path;
  document["records"] = scan.records;
  document["arrays_read"] = scan.arrays_read;
  return document;
}

}  // namespace

const std::vector<std::string>& nan_scan_report_formats() {
  static const std::vector<std::string> formats =
      format_names({ReportPart::kDocument, ReportPart::kData});
  return formats;
}

Report nan_scan_report(const NanScan& scan) {
  Report report;
  report.document = nan_scan_document(scan);
  report.data = nan_scan_json(scan);
  return report;
}

void write_nan_scan_report(const NanScan& scan, std::string_view format, std::ostream& out) {
  render_report(nan_scan_report(scan), format, nan_scan_report_formats(), out);
}

}  // namespace parity::analyzer
