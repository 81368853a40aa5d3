// The verbs of the `parity` command. Each registers its subcommand, options
// and help text on the app, and sets `run` to the function that executes it
// when that subcommand is chosen. A run returns the exit code (0 all checks
// pass, 1 checks found problems, 2 could not run) or throws parity::Error.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace parity::cli {

using Run = std::function<int()>;

void add_info_command(CLI::App& app, Run& run);
void add_export_command(CLI::App& app, Run& run);
void add_diff_command(CLI::App& app, Run& run);
void add_convert_command(CLI::App& app, Run& run);
void add_compare_command(CLI::App& app, Run& run);
void add_nan_scan_command(CLI::App& app, Run& run);
void add_report_command(CLI::App& app, Run& run);
void add_diff_trace_command(CLI::App& app, Run& run);
void add_synth_command(CLI::App& app, Run& run);
void add_tune_allreduce_command(CLI::App& app, Run& run);

}  // namespace parity::cli
