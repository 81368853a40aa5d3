// The verbs of the `parity` command. Each registers its subcommand, options
// and help text on the app, and sets `run` to the function that executes it
// when that subcommand is chosen. A run returns the exit code (0 all checks
// pass, 1 checks found problems, 2 could not run) or throws parity::Error.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

namespace parity::cli {

using Run = std::function<int()>;

// A subcommand and the options CLI11 parses into. The options live in a
// shared_ptr because parsing writes them after registration returns, and the
// run, which reads them, outlives both.
template <class Options>
struct Subcommand {
  CLI::App* command;
  std::shared_ptr<Options> options;
};

template <class Options>
Subcommand<Options> add_subcommand(CLI::App& app, const std::string& name,
                                   const std::string& description) {
  return {app.add_subcommand(name, description), std::make_shared<Options>()};
}

// Makes `body` what `parity` runs once CLI11 has chosen `command`.
inline void when_chosen(CLI::App* command, Run& run, Run body) {
  command->callback([&run, body = std::move(body)] { run = body; });
}

void add_import_command(CLI::App& app, Run& run);
void add_info_command(CLI::App& app, Run& run);
void add_export_command(CLI::App& app, Run& run);
void add_diff_command(CLI::App& app, Run& run);
void add_convert_command(CLI::App& app, Run& run);
void add_compare_command(CLI::App& app, Run& run);
void add_nan_scan_command(CLI::App& app, Run& run);
void add_grad_probe_command(CLI::App& app, Run& run);
void add_report_command(CLI::App& app, Run& run);
void add_diff_trace_command(CLI::App& app, Run& run);
void add_synth_command(CLI::App& app, Run& run);
void add_tune_allreduce_command(CLI::App& app, Run& run);
void add_loss_compare_command(CLI::App& app, Run& run);
void add_record_command(CLI::App& app, Run& run);

}  // namespace parity::cli
