// The formats every report-writing command renders its Report in, as one
// table: the name --format takes, the extension of its file in an output
// directory, the part of the Report it renders and its renderer. A new
// format is one row here and one renderer file (docs/report.md, "Adding a
// format").
#pragma once

#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

struct ReportFormat {
  std::string_view name;       // text, md, html, json, junit, csv
  std::string_view extension;  // ".txt", ...: a file is the report's stem and this
  ReportPart part;             // what it renders
  void (*render)(const Report& report, std::ostream& out);
};

std::span<const ReportFormat> report_formats();

// The names of the formats that render one of `parts`, in the table's order.
std::vector<std::string> format_names(std::initializer_list<ReportPart> parts);

// `stem` and the format's extension: report.txt, diff-trace.junit.xml, ...
std::string report_file_name(std::string_view stem, std::string_view format);

// Renders the report in `format`; throws parity::Error (unknown_report_format)
// when it is not one of `offered`.
void render_report(const Report& report, std::string_view format,
                   const std::vector<std::string>& offered, std::ostream& out);

}  // namespace parity::analyzer
