#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/chrome_trace_export.hpp"
#include "progress.hpp"
#include "trace_inputs.hpp"

namespace parity::cli {
namespace {

namespace fs = std::filesystem;

fs::path default_output(const fs::path& trace) {
  fs::path output = trace.filename();
  output.replace_extension(".trace.json");
  return output;
}

// Writes to a temporary file beside the output and renames it into place, so
// that a failed export never leaves a half-written file under the final name.
int export_chrome(const fs::path& trace_path, const fs::path& output) {
  profiler::TraceReader trace(trace_path);
  const fs::path parent = output.has_parent_path() ? output.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    throw Error("output directory does not exist", parent.string(), "create it first");
  fs::path temporary = output;
  temporary += ".partial";
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write the output file", temporary.string(), "check permissions");
    ProgressLine progress("exporting");
    const auto stats = profiler::export_chrome_trace(
        trace, out, [&progress](double fraction) { progress.update(fraction); });
    out.close();
    if (!out)
      throw Error("could not write the output file", temporary.string(), "is the disk full?");
    fs::rename(temporary, output);
    std::cerr << "wrote " << output.string() << ": " << stats.events << " events, " << stats.flows
              << " flow arrows\n";
  } catch (...) {
    fs::remove(temporary, ec);
    throw;
  }
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Run& run) {
  struct Options {
    std::string trace;
    std::string format = "chrome";
    std::string output;
  };
  const auto [command, options] =
      add_subcommand<Options>(app, "export",
                              "Convert a trace for other viewers: Chrome trace-event JSON, which "
                              "chrome://tracing and the Perfetto UI open");
  command->add_option("trace", options->trace, "Trace database (RUN.db)")->required();
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"chrome"}))
      ->capture_default_str();
  command->add_option("-o,--output", options->output,
                      "Output file (default: the trace's name with .trace.json, in the current "
                      "directory)");
  when_chosen(command, run, [options = options] {
    const fs::path output =
        options->output.empty() ? default_output(options->trace) : fs::path(options->output);
    return export_chrome(readable_trace(options->trace), output);
  });
}

}  // namespace parity::cli
