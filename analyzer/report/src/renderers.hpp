// The renderers of the format table (report_formats.cpp), one file each.
#pragma once

#include <ostream>

#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

void render_text_format(const Report& report, std::ostream& out);
void render_markdown_format(const Report& report, std::ostream& out);
void render_html_format(const Report& report, std::ostream& out);
void render_json_format(const Report& report, std::ostream& out);
void render_junit_format(const Report& report, std::ostream& out);
void render_csv_format(const Report& report, std::ostream& out);

}  // namespace parity::analyzer
