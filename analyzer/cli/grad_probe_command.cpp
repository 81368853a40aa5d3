// `parity grad-probe A B`: the first training step where two runs' gradient
// signs stop agreeing.
#include "commands.hpp"
#include "parity/analyzer/grad_probe/grad_probe_compare.hpp"
#include "parity/analyzer/grad_probe/grad_probe_report.hpp"
#include "report_output.hpp"

namespace parity::cli {

void add_grad_probe_command(CLI::App& app, Run& run) {
  struct Options {
    std::string a, b, reference;
    analyzer::ProbeThresholds thresholds;
    ReportFlags report;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "grad-probe",
      "Compare two gradient-sign probes (parity-train train --probe-grads, "
      "samples/torch/dump_reference.py --probe-grads) step by step: the fraction of gradient "
      "elements whose signs agree, per parameter and overall, and the first step where it falls "
      "below --threshold or drops by more than --max-fall; with --reference R (a float64 run's "
      "probe), where A's signs disagree with R's more than --reference-ratio times as often as "
      "B's. Exit code 0 when no common step is "
      "bad, 1 when one is or the probes share no step, 2 when it could not run (a missing or "
      "cut file, a wrong format, probes of different parameters)");
  command->add_option("a", options->a, "First probe directory (A)")->required();
  command->add_option("b", options->b, "Second probe directory (B)")->required();
  command->add_option("--threshold", options->thresholds.min_similarity,
                      "A step whose sign similarity is below this is bad (default 0.97)");
  command->add_option("--max-fall", options->thresholds.max_fall,
                      "A step whose similarity is more than this below the step before is bad "
                      "(default 0.03)");
  command->add_option("--reference", options->reference,
                      "A float64 run's probe (dump_reference.py --float64 --probe-grads, or "
                      "parity-train with precision: float64): a step is bad where A strays "
                      "further from it than B does, not by --threshold and --max-fall");
  command->add_option("--reference-ratio", options->thresholds.reference_ratio,
                      "With --reference: a step is bad where A's share of signs differing from "
                      "R's is more than this many times B's (default 2; each share at least "
                      "0.001)");
  add_report_options(*command, options->report, analyzer::grad_probe_report_formats());
  when_chosen(command, run, [options = options] {
    const analyzer::GradProbeComparison comparison = analyzer::compare_grad_probes(
        options->a, options->b, options->thresholds,
        options->reference.empty() ? std::nullopt
                                   : std::optional<std::filesystem::path>(options->reference));
    write_report(options->report, analyzer::grad_probe_report(comparison),
                 analyzer::grad_probe_report_formats());
    return comparison.passed() ? 0 : 1;
  });
}

}  // namespace parity::cli
