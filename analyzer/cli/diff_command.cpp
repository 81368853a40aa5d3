// `parity diff A B`: pairs and compares every tensor of two checkpoints.
#include "commands.hpp"
#include "parity/analyzer/weights/diff_report.hpp"
#include "parity/analyzer/weights/weight_diff.hpp"
#include "progress.hpp"
#include "report_output.hpp"
#include "tolerance_options.hpp"

namespace parity::cli {

void add_diff_command(CLI::App& app, Run& run) {
  struct Options {
    std::string a, b, map = "auto";
    ToleranceFlags tolerances;
    ReportFlags report;
    unsigned threads = 0;
    bool strict = false;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "diff",
      "Compare two checkpoints parameter by parameter (.pth .pt .ckpt .safetensors .npy .npz, "
      "any pair of formats), pairing names across naming schemes. Exit code 0 when every pair "
      "agrees, 1 when some do not, 2 on bad input");
  command->add_option("a", options->a, "First checkpoint (A)")->required();
  command
      ->add_option("b", options->b, "Second checkpoint (B), the reference of relative differences")
      ->required();
  command->add_option(
      "--map", options->map,
      "How names pair: auto (default), structure, a built-in map (identity, "
      "mindspore-to-torch, torch-to-mindspore, modelzoo-to-torch, torch-to-modelzoo) "
      "or a YAML/JSON rule file");
  command->add_flag(
      "--strict", options->strict,
      "Pair and compare the optimizer state and training bookkeeping too (MindSpore's moments.*, "
      "learning_rate, global_step, epoch_num; a PyTorch checkpoint's optimizer, epoch), so that "
      "an entry on one side only fails the verdict. Without it they are listed apart");
  add_tolerance_options(*command, options->tolerances, "parameters");
  add_report_options(*command, options->report, analyzer::diff_report_formats());
  command->add_option("--threads", options->threads,
                      "Pairs compared at once (default: one per core)");
  when_chosen(command, run, [options = options] {
    analyzer::DiffOptions diff_options;
    diff_options.map = options->map;
    diff_options.tolerances = options->tolerances.rules();
    diff_options.threads = options->threads;
    diff_options.strict = options->strict;
    const auto a = importers::open_tensor_file(options->a);
    const auto b = importers::open_tensor_file(options->b);
    ProgressLine progress("comparing");
    diff_options.progress = [&progress](std::size_t done, std::size_t total) {
      progress.update(done, total);
    };
    const analyzer::WeightDiff diff = analyzer::diff_checkpoints(*a, *b, diff_options);
    write_report(options->report, analyzer::diff_report(diff), analyzer::diff_report_formats());
    return diff.all_agree() ? 0 : 1;
  });
}

}  // namespace parity::cli
