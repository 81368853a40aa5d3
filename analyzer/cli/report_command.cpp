// `parity report RUN.db...`: where a run's time goes, the findings of every
// rule, and an optional comparison with a baseline run, in the formats a
// terminal, a CI summary, a browser and a CI test view read.
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/core/error.hpp"
#include "progress.hpp"
#include "report_output.hpp"
#include "trace_inputs.hpp"

namespace parity::cli {
namespace {

std::string rules_listing() {
  std::string text = "rules:\n";
  for (const auto& rule : analyzer::rules_table())
    text += "  " + std::string(rule.id) + ": " + std::string(rule.checks) + "\n";
  text += "settings (--set name=value):\n";
  const analyzer::Thresholds defaults;
  for (const auto& info : analyzer::thresholds_table()) {
    std::ostringstream value;
    value << defaults.*info.field;
    text += "  " + std::string(info.name) + " = " + value.str() + ": " + std::string(info.meaning) +
            "\n";
  }
  return text;
}

}  // namespace

void add_report_command(CLI::App& app, Run& run) {
  struct Options {
    std::vector<std::string> traces, baseline, settings;
    MultiReportFlags report;
    std::string fail_on = "error";
    std::optional<double> max_regression;
    bool list_rules = false;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "report",
      "Analyze a run's traces (one database per rank): step breakdown, operators, kernels, data "
      "queue, communication, device idle time, stragglers; findings of every rule "
      "(docs/rules.md) with the evidence and a next step; and, with --baseline, regression "
      "checks. Exit code 0 when no finding reaches --fail-on and nothing regressed, 1 when one "
      "does, 2 when it could not run (a missing, truncated or foreign file, a trace with no "
      "steps, bad options)");
  command->add_option("traces", options->traces, "Trace databases of one run, one per rank");
  command
      ->add_option("--baseline", options->baseline,
                   "Trace(s) of the baseline run to compare against (repeat for several ranks)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1);
  command
      ->add_option("--max-regression", options->max_regression,
                   "Allowed slowdown against the baseline, in percent of the baseline's median "
                   "step (default 5)")
      ->check(CLI::NonNegativeNumber);
  add_multi_report_options(*command, options->report, analyzer::profile_report_formats(), "report");
  command
      ->add_option("--fail-on", options->fail_on,
                   "Lowest finding severity that fails the run: warning or error (default), "
                   "or info")
      ->check(CLI::IsMember({"info", "warning", "error"}));
  command->add_option("--set", options->settings,
                      "Change a threshold, name=value (repeatable; --list-rules shows them)");
  command->add_flag("--list-rules", options->list_rules, "List the rules and settings, and exit");
  when_chosen(command, run, [options = options] {
    if (options->list_rules) {
      std::cout << rules_listing();
      return 0;
    }
    if (options->traces.empty())
      throw Error("no trace given", "parity report", "pass one .db file per rank of the run");
    const std::vector<std::string> formats =
        checked_formats(options->report, analyzer::profile_report_formats());
    analyzer::ReportInputs inputs;
    for (const std::string& setting : options->settings)
      analyzer::set_threshold(inputs.thresholds, setting);
    if (options->max_regression) inputs.thresholds.max_regression_pct = *options->max_regression;
    for (const std::string& trace : readable_traces(options->traces))
      inputs.traces.push_back(trace);
    for (const std::string& trace : readable_traces(options->baseline))
      inputs.baseline.push_back(trace);
    inputs.fail_on = analyzer::parse_severity(options->fail_on);
    ProgressLine progress("analyzing");
    inputs.progress = [&progress](double fraction) { progress.update(fraction); };
    const analyzer::ProfileReport report = analyzer::build_profile_report(inputs);
    write_reports(options->report, formats, "report", analyzer::to_report(report), "parity report");
    return report.failed() ? 1 : 0;
  });
}

}  // namespace parity::cli
