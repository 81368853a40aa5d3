// The report options every reporting verb shares (--format, -o) and writing
// the report to stdout or to the -o file, with write errors named; and those
// of the verbs that write several formats at once (report, diff-trace:
// --format a,b,c -o DIR).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace parity::cli {

struct ReportFlags {
  std::string format = "text";
  std::string output;  // empty: stdout
};

void add_report_options(CLI::App& command, ReportFlags& flags,
                        const std::vector<std::string>& formats);

// Calls `write` with stdout, or with the -o file; throws parity::Error when
// the file cannot be written.
void write_report(const ReportFlags& flags, const std::function<void(std::ostream&)>& write);

struct MultiReportFlags {
  std::string formats = "text";  // comma-separated
  std::string output;            // a directory; empty: one format to stdout
};

// --format and -o DIR; `files` says what -o DIR receives ("report.txt, ...").
void add_multi_report_options(CLI::App& command, MultiReportFlags& flags,
                              const std::vector<std::string>& formats, const std::string& files);
// The formats asked for, each once; throws parity::Error for an unknown one,
// none, or several without -o. Call it before the work, so that bad options
// fail at once.
std::vector<std::string> checked_formats(const MultiReportFlags& flags,
                                         const std::vector<std::string>& known);
// Writes one format to stdout, or every format into the -o directory (created
// if missing) as file_name(format), and says so on stderr.
void write_reports(const MultiReportFlags& flags, const std::vector<std::string>& formats,
                   const std::function<std::string(const std::string&)>& file_name,
                   const std::function<void(const std::string&, std::ostream&)>& write,
                   const std::string& verb);

}  // namespace parity::cli
