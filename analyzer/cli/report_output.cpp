#include "report_output.hpp"

#include <fstream>
#include <iostream>

#include "parity/core/error.hpp"

namespace parity::cli {

void add_report_options(CLI::App& command, ReportFlags& flags,
                        const std::vector<std::string>& formats) {
  std::string names;
  for (const std::string& format : formats) names += (names.empty() ? "" : ", ") + format;
  command.add_option("--format", flags.format, "Report format: " + names + " (default: text)")
      ->check(CLI::IsMember(formats));
  command.add_option("-o,--output", flags.output,
                     "Write the report to this file instead of stdout");
}

void write_report(const ReportFlags& flags, const std::function<void(std::ostream&)>& write) {
  if (flags.output.empty()) {
    write(std::cout);
    return;
  }
  std::ofstream out(flags.output, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write the report", flags.output, "check the directory exists");
  write(out);
  out.close();
  if (!out) throw Error("writing the report failed", flags.output, "check free disk space");
}

}  // namespace parity::cli
