// `parity`: the analysis command. Exit codes: 0 all checks pass, 1 checks ran
// and found problems, 2 could not run (bad input or usage).
#include <iostream>

#include "commands.hpp"
#include "parity/core/error.hpp"
#include "parity/core/version.hpp"

int main(int argc, char** argv) {
  constexpr int kCouldNotRun = 2;
  CLI::App app{
      "parity: profile analysis, weight diffing and tensor comparison for deep-learning "
      "training"};
  app.set_version_flag("--version", std::string("parity ") + parity::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  parity::cli::Run run;
  parity::cli::add_import_command(app, run);
  parity::cli::add_info_command(app, run);
  parity::cli::add_export_command(app, run);
  parity::cli::add_diff_command(app, run);
  parity::cli::add_convert_command(app, run);
  parity::cli::add_compare_command(app, run);
  parity::cli::add_nan_scan_command(app, run);
  parity::cli::add_grad_probe_command(app, run);
  parity::cli::add_report_command(app, run);
  parity::cli::add_diff_trace_command(app, run);
  parity::cli::add_synth_command(app, run);
  parity::cli::add_tune_allreduce_command(app, run);
  parity::cli::add_loss_compare_command(app, run);
  parity::cli::add_record_command(app, run);

  // CLI11 would read an unknown verb as a stray argument; name it instead.
  const auto is_verb = [&app](const std::string& word) {
    for (const CLI::App* command : app.get_subcommands({}))
      if (command->get_name() == word) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_verb(argv[1])) {
    std::cerr << "parity: error: unknown command '" << argv[1]
              << "'\n  hint: the commands are: info, export, diff, convert, compare, nan-scan, "
                 "grad-probe, report, diff-trace, synth, tune-allreduce, loss-compare, record (see "
                 "parity --help)\n";
    return kCouldNotRun;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);  // --help, --version
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kCouldNotRun;
  }
  try {
    return run();
  } catch (const parity::Error& error) {
    std::cerr << "parity: error: " << error.what() << '\n';
    return kCouldNotRun;
  } catch (const std::exception& error) {
    std::cerr << "parity: error: " << error.what() << '\n';
    return kCouldNotRun;
  }
}
