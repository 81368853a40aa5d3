// `parity diff-trace A.db B.db`: two runs' step breakdowns, op categories,
// ops and kernels side by side, with a regression exit code for B against A, in every format
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
    std::string op_map;
    MultiReportFlags report;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "diff-trace",
      "Compare two traces (A the reference, B the run under test): the steady-state step "
      "breakdown side by side, the step time by op category (which pairs different frameworks' "
      "ops), and each op and GPU kernel's calls and time per step, largest "
      "differences first. Exit code 0 when B is no slower than A beyond --max-regression, 1 when "
      "it is, 2 when it could not run");
  command->add_option("a", options->a, "Reference trace (A)")->required();
  command->add_option("b", options->b, "Trace under test (B)")->required();
  command
      ->add_option("--max-regression", options->max_regression,
                   "Allowed slowdown of B, in percent of A's median step (default 5)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--rows", options->rows, "Rows of the op and kernel tables (default 20)");
  command->add_option("--op-map", options->op_map,
                      "Op-category map (YAML) that extends the built-in one, which pairs "
                      "different frameworks' ops by category (docs/op-categories.md)");
  command->add_option("--set", options->settings,
                      "Change an analysis setting, name=value (see parity report --list-rules)");
  add_multi_report_options(*command, options->report, analyzer::trace_diff_formats(), "diff-trace");
  when_chosen(command, run, [options = options] {
    const std::vector<std::string> formats =
        checked_formats(options->report, analyzer::trace_diff_formats());
    analyzer::TraceDiffInputs inputs;
    for (const std::string& setting : options->settings)
      analyzer::set_threshold(inputs.thresholds, setting);
    if (!options->op_map.empty())
      inputs.categories = analyzer::OpCategoryMap::with_file(options->op_map);
    inputs.a = readable_trace(options->a);
    inputs.b = readable_trace(options->b);
    inputs.max_regression_pct = options->max_regression;
    ProgressLine progress("analyzing");
    inputs.progress = [&progress](double f) { progress.update(f); };
    const analyzer::TraceDiff diff = analyzer::diff_trace_files(inputs);
    write_reports(options->report, formats, "diff-trace",
                  analyzer::trace_diff_report(diff, options->rows), "parity diff-trace");
    return diff.regression.regressed() ? 1 : 0;
  });
}

}  // namespace parity::cli
