// The report options every reporting verb shares (--format, -o) and writing
// its Report, rendered by the format table (report_formats.hpp), to stdout or
// to the -o file, with write errors named; and those of the verbs that write
// several formats at once (report, diff-trace: --format a,b,c -o DIR).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "parity/analyzer/report/report.hpp"

namespace parity::cli {

struct ReportFlags {
  std::string format = "text";
  std::string output;  // empty: stdout
};

void add_report_options(CLI::App& command, ReportFlags& flags,
                        const std::vector<std::string>& formats);

// Renders the report in --format (one of `formats`) to stdout, or to the -o
// file; throws parity::Error when the file cannot be written.
void write_report(const ReportFlags& flags, const analyzer::Report& report,
                  const std::vector<std::string>& formats);

struct MultiReportFlags {
  std::string formats = "text";  // comma-separated
  std::string output;            // a directory; empty: one format to stdout
};

// --format and -o DIR, which receives `stem` with each format's extension.
void add_multi_report_options(CLI::App& command, MultiReportFlags& flags,
                              const std::vector<std::string>& formats, std::string_view stem);
// The formats asked for, each once; throws parity::Error for an unknown one,
// none, or several without -o. Call it before the work, so that bad options
// fail at once.
std::vector<std::string> checked_formats(const MultiReportFlags& flags,
                                         const std::vector<std::string>& known);
// Renders one format to stdout, or every format into the -o directory
// (created if missing) as `stem` and the format's extension, and says so on
// stderr.
void write_reports(const MultiReportFlags& flags, const std::vector<std::string>& formats,
                   std::string_view stem, const analyzer::Report& report, const std::string& verb);

}  // namespace parity::cli
