// `parity loss-compare A B`: the first step where two loss curves part.
#include "commands.hpp"
#include "parity/analyzer/loss/loss_input.hpp"
#include "parity/analyzer/loss/loss_report.hpp"
#include "report_output.hpp"

namespace parity::cli {

void add_loss_compare_command(CLI::App& app, Run& run) {
  struct Options {
    std::string a, b, pattern_a, pattern_b;
    std::vector<std::string> band;
    analyzer::LossTolerance tolerance;
    std::optional<std::int64_t> steps_per_epoch;
    ReportFlags report;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "loss-compare",
      "Compare two loss curves (MindSpore-style training logs as parity-train prints them, other "
      "logs through --pattern-a/-b, or traces with a loss counter) step by step, and name the "
      "first step where B leaves what A allows, and whether the first loss already differs. "
      "Exit code 0 when every common step matches, 1 when the curves part or share no step, 2 "
      "when it could not run (a missing file, no loss line, a bad pattern, a corrupt trace)");
  command->add_option("a", options->a, "The reference curve (A): a log, a trace or a Chrome trace")
      ->required();
  command->add_option("b", options->b, "The curve checked against it (B)")->required();
  command->add_option("--pattern-a", options->pattern_a,
                      "How A's loss lines read: 'Iter {step}: loss={loss}' ({loss}, {step}, "
                      "{epoch}, {*} any text; see docs/loss-compare.md); default: MindSpore's "
                      "'epoch: N step: M, loss is X'");
  command->add_option("--pattern-b", options->pattern_b, "The same for B");
  command->add_option("--band", options->band,
                      "A repeated run of A (repeatable): B may be anywhere between the runs' "
                      "lowest and highest loss at each step, widened by the tolerances");
  command->add_option("--atol", options->tolerance.atol, "Absolute tolerance (default 1e-6)");
  command->add_option("--rtol", options->tolerance.rtol,
                      "Relative tolerance, of A's loss (default 1e-5)");
  command->add_option("--steps-per-epoch", options->steps_per_epoch,
                      "Steps per epoch of logs whose step numbers restart each epoch (default: "
                      "inferred, the largest step of the epochs before the last)");
  add_report_options(*command, options->report, analyzer::loss_report_formats());
  when_chosen(command, run, [options = options] {
    const auto input = [&](const std::string& pattern, const std::string& option) {
      return analyzer::LossInputOptions{pattern, option, options->steps_per_epoch};
    };
    analyzer::LossCurve a =
        analyzer::read_loss_curve(options->a, input(options->pattern_a, "--pattern-a"));
    analyzer::LossCurve b =
        analyzer::read_loss_curve(options->b, input(options->pattern_b, "--pattern-b"));
    std::vector<analyzer::LossCurve> band;
    for (const std::string& path : options->band)
      band.push_back(analyzer::read_loss_curve(path, input(options->pattern_a, "--pattern-a")));
    const analyzer::LossComparison comparison =
        analyzer::compare_losses(std::move(a), std::move(b), std::move(band), options->tolerance);
    write_report(options->report, analyzer::loss_report(comparison),
                 analyzer::loss_report_formats());
    return comparison.matched() ? 0 : 1;
  });
}

}  // namespace parity::cli
