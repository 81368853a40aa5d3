// The report options every reporting verb shares (--format, -o) and writing
// the report to stdout or to the -o file, with write errors named.
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

}  // namespace parity::cli
