// `parity compare A B`: the first tensor, in execution order, where two
// tensor dumps part ways.
#include <optional>

#include "commands.hpp"
#include "parity/core/error.hpp"
#include "parity/analyzer/compare/compare_report.hpp"
#include "parity/analyzer/compare/dump_compare.hpp"
#include "progress.hpp"
#include "report_output.hpp"
#include "tolerance_options.hpp"

namespace parity::cli {

void add_compare_command(CLI::App& app, Run& run) {
  struct Options {
    std::string a, b, map = "identity";
    ToleranceFlags tolerances;
    ReportFlags report;
    unsigned threads = 0;
    bool all = false;
    std::string reference;
    double reference_mean_ratio = 2, reference_max_ratio = 10;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "compare",
      "Compare two tensor dumps (parity-train --dump, samples/torch/dump_reference.py, or plain "
      "directories of .npy files) and name the first tensor, in forward and in backward order, "
      "where they part ways. Exit code 0 when every paired tensor matches and the two ran the "
      "same ops in the same order (records with no counterpart outside that, in plain .npy "
      "directories or a phase one side did not dump, are warnings), 1 when some pair mismatches, "
      "a record is missing on one side, reordered or another op, or nothing pairs, 2 when it "
      "could not run (a missing directory, a corrupt manifest line, a "
      "missing .npy file, one that disagrees with its manifest line)");
  command
      ->add_option("a", options->a,
                   "First dump directory (A), whose execution order the report follows")
      ->required();
  command
      ->add_option("b", options->b,
                   "Second dump directory (B), the reference of relative differences")
      ->required();
  command->add_option(
      "--map", options->map,
      "Map A's names to B's before pairing: a built-in map (identity, the default; "
      "mindspore-to-torch, torch-to-mindspore, modelzoo-to-torch, torch-to-modelzoo) or "
      "a YAML/JSON rule file");
  add_tolerance_options(*command, options->tolerances, "records");
  add_report_options(*command, options->report, analyzer::compare_report_formats());
  command->add_option("--threads", options->threads,
                      "Pairs compared at once (default: one per core)");
  command->add_option(
      "--reference", options->reference,
      "A float64 dump R of B's producer from the same weights and batch "
      "(dump_reference.py --float64): each floating pair is judged by its errors against R, "
      "passing where A's is within --reference-mean-ratio of B's on average and "
      "--reference-max-ratio at most, so that float32 rounding is never called a mismatch");
  command->add_option("--reference-mean-ratio", options->reference_mean_ratio,
                      "With --reference: A's mean error against R at most this times B's "
                      "(default 2)");
  command->add_option("--reference-max-ratio", options->reference_max_ratio,
                      "With --reference: A's largest error against R at most this times B's "
                      "(default 10)");
  command->add_flag("--all", options->all,
                    "List every pair and every record with no counterpart, not only the mismatches "
                    "(text, md and html; the other formats always list every pair)");
  when_chosen(command, run, [options = options] {
    analyzer::CompareOptions compare_options;
    compare_options.map = options->map;
    compare_options.tolerances = options->tolerances.rules();
    compare_options.parallel.threads = options->threads;
    const auto a = importers::TensorDump::open(options->a);
    const auto b = importers::TensorDump::open(options->b);
    std::optional<importers::TensorDump> reference;
    if (!options->reference.empty()) {
      if (!(options->reference_mean_ratio >= 1) || !(options->reference_max_ratio >= 1))
        throw Error("the reference ratios must be at least 1", "--reference-mean-ratio/--reference-max-ratio",
                    "A passes where its error is within that factor of B's; 1 asks for no more error than B's");
      reference = importers::TensorDump::open(options->reference);
      compare_options.reference = &*reference;
      compare_options.reference_limits = {options->reference_mean_ratio,
                                          options->reference_max_ratio};
    }
    ProgressLine progress("comparing");
    compare_options.parallel.progress = [&progress](std::size_t done, std::size_t total) {
      progress.update(done, total);
    };
    const analyzer::DumpComparison comparison = analyzer::compare_dumps(a, b, compare_options);
    write_report(options->report, analyzer::compare_report(comparison, options->all),
                 analyzer::compare_report_formats());
    return comparison.passed() ? 0 : 1;
  });
}

}  // namespace parity::cli
