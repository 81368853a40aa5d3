#include "report_output.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/report_format.hpp"
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

void write_report(const ReportFlags& flags, const analyzer::Report& report,
                  const std::vector<std::string>& formats) {
  const auto write = [&](std::ostream& out) {
    analyzer::render_report(report, flags.format, formats, out);
  };
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

void add_multi_report_options(CLI::App& command, MultiReportFlags& flags,
                              const std::vector<std::string>& formats, std::string_view stem) {
  std::string names, files;
  for (std::size_t k = 0; k < formats.size(); ++k) {
    names += (k == 0 ? "" : ", ") + formats[k];
    files += (k == 0                    ? ""
              : k + 1 == formats.size() ? " and "
                                        : ", ") +
             analyzer::report_file_name(stem, formats[k]);
  }
  command.add_option("--format", flags.formats,
                     "Comma-separated formats: " + names + " (default: text)");
  command.add_option(
      "-o,--output", flags.output,
      "Directory to write " + files + " into (created if missing); default: one format to stdout");
}

std::vector<std::string> checked_formats(const MultiReportFlags& flags,
                                         const std::vector<std::string>& known) {
  std::vector<std::string> formats;
  std::stringstream stream(flags.formats);
  for (std::string format; std::getline(stream, format, ',');) {
    if (format.empty()) continue;
    if (std::find(known.begin(), known.end(), format) == known.end())
      throw analyzer::unknown_report_format(format, known);
    if (std::find(formats.begin(), formats.end(), format) == formats.end())
      formats.push_back(format);
  }
  if (formats.empty())
    throw Error("--format names no format", "--format", "e.g. --format text,json");
  if (formats.size() > 1 && flags.output.empty())
    throw Error("several formats need an output directory", "--format " + flags.formats,
                "add -o DIR, or ask for one format");
  return formats;
}

void write_reports(const MultiReportFlags& flags, const std::vector<std::string>& formats,
                   std::string_view stem, const analyzer::Report& report, const std::string& verb) {
  if (flags.output.empty()) {
    analyzer::render_report(report, formats.front(), formats, std::cout);
    return;
  }
  const std::filesystem::path dir(flags.output);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw Error("cannot create the output directory: " + error.message(), dir.string());
  for (const std::string& format : formats) {
    const std::filesystem::path path = dir / analyzer::report_file_name(stem, format);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    analyzer::render_report(report, format, formats, out);
    out.close();
    if (!out)
      throw Error("cannot write the report", path.string(), "check the directory is writable");
  }
  std::cerr << verb << ": wrote " << formats.size() << " report" << (formats.size() > 1 ? "s" : "")
            << " to " << dir.string() << '\n';
}

}  // namespace parity::cli
