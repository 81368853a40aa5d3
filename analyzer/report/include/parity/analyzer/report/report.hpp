// Report: what every report-writing command of `parity` (report, diff-trace,
// diff, compare, nan-scan, tune-allreduce) builds once, and every format
// renders (report_formats.hpp): the Document that text, Markdown and HTML lay
// out, with what the HTML page adds to it; the data tree JSON writes; the
// checks JUnit lists; the records CSV lists. A command fills the parts it has;
// the formats of the parts it leaves empty are not offered for it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "parity/analyzer/report/document.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {

// The parts of a Report, each rendered by some formats.
enum class ReportPart { kDocument, kData, kChecks, kRecords };

// One row per record, under `#` comment lines.
struct RecordTable {
  std::vector<std::string> comments;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct Report {
  Document document;                   // text, md, html
  HtmlInserts html;                    // charts and styled blocks of the HTML page
  nlohmann::ordered_json data;         // json
  std::optional<JunitSuite> checks;    // junit
  std::optional<RecordTable> records;  // csv
};

}  // namespace parity::analyzer
