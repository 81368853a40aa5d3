#include <iostream>

#include "commands.hpp"
#include "parity/analyzer/trace_summary.hpp"
#include "trace_inputs.hpp"

namespace parity::cli {

void add_info_command(CLI::App& app, Run& run) {
  struct Options {
    std::string trace;
    bool json = false;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "info",
      "Summarise a trace: schema version, command line, tracks, rows per table, time "
      "span and dropped records");
  command->add_option("trace", options->trace, "Trace database (RUN.db)")->required();
  command->add_flag("--json", options->json, "Print the summary as JSON");
  when_chosen(command, run, [options = options] {
    profiler::TraceReader trace(readable_trace(options->trace));
    const analyzer::TraceSummary summary = analyzer::summarize(trace);
    if (options->json)
      std::cout << analyzer::to_json(summary).dump(2) << '\n';
    else
      std::cout << analyzer::to_text(summary);
    return 0;
  });
}

}  // namespace parity::cli
