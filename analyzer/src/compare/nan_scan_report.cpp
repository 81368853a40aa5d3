#include "parity/analyzer/compare/nan_scan_report.hpp"

#include "parity/analyzer/compare/record_json.hpp"
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

void write_text(const NanScan& scan, std::ostream& out) {
  const std::string scanned = std::to_string(scan.records) + " records of " + scan.path + " (" +
                              std::to_string(scan.arrays_read) + " arrays read)";
  if (!scan.found()) {
    out << "no NaN or Inf: scanned " << scanned << '\n';
    return;
  }
  const DumpRecord& first = *scan.first;
  out << "first NaN/Inf: " << first.describe() << ": " << scan.counts.nan << " NaN, "
      << scan.counts.inf << " Inf, first at " << first_element_text(scan) << '\n';
  out << " ";
  if (!first.phase.empty()) out << " step " << first.step << ", phase " << first.phase << ",";
  out << " module " << first.module;
  if (!first.op.empty()) out << ", op " << first.op;
  if (!first.role.empty()) out << ", role " << first.role;
  out << ", " << dtype_name(first.dtype) << ' ' << importers::shape_to_string(first.shape) << '\n';
  out << "culprit: " << producer(first) << ": its output holds NaN/Inf while ";
  if (scan.before)
    out << "its input side was clean (" << scan.before->describe()
        << ", executed just before it, holds none)\n";
  else
    out << "nothing ran before it (the first record of the dump)\n";
  out << "later: " << scan.later_nonfinite << " of " << scan.later_records
      << " later records hold NaN or Inf\n"
      << "scanned " << scanned << '\n';
}

void write_json(const NanScan& scan, std::ostream& out) {
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
  out << document.dump(2) << '\n';
}

}  // namespace

std::vector<std::string> nan_scan_report_formats() { return {"text", "json"}; }

void write_nan_scan_report(const NanScan& scan, std::string_view format, std::ostream& out) {
  if (format == "text") return write_text(scan, out);
  if (format == "json") return write_json(scan, out);
  throw unknown_report_format(format, nan_scan_report_formats());
}

}  // namespace parity::analyzer
