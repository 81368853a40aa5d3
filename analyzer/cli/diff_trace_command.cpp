// `parity diff-trace A.db B.db`: two runs' step breakdowns, ops and kernels
// side by side, with a regression exit code for B against A, in every format
// of `parity report`.
#include "commands.hpp"
#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/profile/trace_diff.hpp"
#include "progress.hpp"
#include "report_output.hpp"
#include "trace_inputs.hpp"

namespace parity::cli {

void add_diff_trace_command(CLI::App& app, Run& run) {
  struct Options {
    std::string a, b;
    double max_regression = analyzer::Thresholds{}.max_regression_pct;
    std::size_t rows = 20;
    std::vector<std::string> settings;
    MultiReportFlags report;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "diff-trace",
      "Compare two traces (A the reference, B the run under test): the steady-state step "
      "breakdown side by side, and each op and GPU kernel's calls and time per step, largest "
      "differences first. Exit code 0 when B is no slower than A beyond --max-regression, 1 when "
      "it is, 2 when it could not run");
  command->add_option("a", options->a, "Reference trace (A)")->required();
  command->add_option("b", options->b, "Trace under test (B)")->required();
  command
      ->add_option("--max-regression", options->max_regression,
                   "Allowed slowdown of B, in percent of A's median step (default 5)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--rows", options->rows, "Rows of the op and kernel tables (default 20)");
  command->add_option("--set", options->settings,
                      "Change an analysis setting, name=value (see parity report --list-rules)");
  add_multi_report_options(*command, options->report, analyzer::trace_diff_formats(), "diff-trace");
  when_chosen(command, run, [options = options] {
    const std::vector<std::string> formats =
        checked_formats(options->report, analyzer::trace_diff_formats());
    analyzer::Thresholds thresholds;
    for (const std::string& setting : options->settings)
      analyzer::set_threshold(thresholds, setting);
    const std::string a = readable_trace(options->a), b = readable_trace(options->b);
    ProgressLine progress("analyzing");
    const auto profiles =
        analyzer::analyze_traces({a, b}, thresholds, [&progress](double f) { progress.update(f); });
    // analyze_traces orders by rank; keep A and B as given.
    const bool swapped = profiles[0].path != a;
    const analyzer::TraceDiff diff = analyzer::diff_traces(
        profiles[swapped ? 1 : 0], profiles[swapped ? 0 : 1], options->max_regression);
    write_reports(options->report, formats, "diff-trace",
                  analyzer::trace_diff_report(diff, options->rows), "parity diff-trace");
    return diff.regression.regressed() ? 1 : 0;
  });
}

}  // namespace parity::cli
