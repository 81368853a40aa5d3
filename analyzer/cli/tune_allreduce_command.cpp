// `parity tune-allreduce RUN.db...`: the gradient-bucket split that minimises
// exposed AllReduce communication, predicted from a traced data-parallel run
// (docs/tune-allreduce.md).
#include <optional>

#include "commands.hpp"
#include "parity/analyzer/tune/tune_report.hpp"
#include "progress.hpp"
#include "report_output.hpp"
#include "trace_inputs.hpp"

namespace parity::cli {

void add_tune_allreduce_command(CLI::App& app, Run& run) {
  struct Options {
    std::vector<std::string> traces, cost_runs, asked_splits;
    std::optional<std::int64_t> ranks;
    std::string link = "measured", objective = "exposed";
    ReportFlags report;
    bool simulate = false;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "tune-allreduce",
      "Find the gradient-bucket split that minimises exposed AllReduce communication, from the "
      "traces of a data-parallel run (one database per rank): gradient-ready times, a cost per "
      "message size measured from the traced AllReduces, an exact optimum compared with "
      "MG-WFBP's greedy merge, DDP's default and the seeds' split, each with its predicted step "
      "time; the answer as parity-train's allreduce_split, MindSpore's all_reduce_fusion_config "
      "and DDP bucket sizes. Exit code 0, or 2 when it could not run");
  command->add_option("traces", options->traces, "Trace databases of one run, one per rank")
      ->required();
  command->add_option("--costs-from", options->cost_runs,
                      "Traces of other runs of the same model (every rank's, run after run), "
                      "e.g. with the split an earlier tuning proposed and with "
                      "allreduce_split=one: their AllReduces add message sizes to the cost "
                      "tables, and their backward phases measure how much AllReduces slow "
                      "backward down");
  command
      ->add_option("--predict", options->asked_splits,
                   "Also predict this split (allreduce_split's forms: index:[85,160], "
                   "split:[86,161], mb:25, none, one); repeat for several")
      // One split a flag, taken whole: CLI11 would read "[85,160]" as a list.
      ->allow_extra_args(false);
  command->add_option("--ranks", options->ranks,
                      "Predict for this many ranks (default: the traced world size)");
  command->add_option("--link", options->link,
                      "AllReduce cost: measured (the trace's own, default), or the preset "
                      "nvlink, ib or ethernet");
  command
      ->add_option("--objective", options->objective,
                   "What the optimum minimises: exposed (default: the communication that "
                   "backward does not hide, as traced) or step (the modelled step time, "
                   "counting how much AllReduces slow backward down)")
      ->check(CLI::IsMember({"exposed", "step"}));
  command->add_flag("--simulate", options->simulate,
                    "Also project the optimum's gain over DDP's default to 8..1024 ranks under "
                    "the ring and tree models");
  add_report_options(*command, options->report, analyzer::tune_report_formats());
  when_chosen(command, run, [options = options] {
    analyzer::TuneOptions tune;
    tune.link = analyzer::parse_link(options->link);
    tune.ranks = options->ranks;
    tune.simulate = options->simulate;
    tune.asked_splits = options->asked_splits;
    tune.objective = options->objective == "step" ? analyzer::SplitObjective::kStep
                                                  : analyzer::SplitObjective::kExposed;
    analyzer::TuneInput input;
    {
      ProgressLine progress("reading traces");
      const std::vector<std::string> traces = readable_traces(options->traces);
      input = analyzer::load_tune_input({traces.begin(), traces.end()},
                                        [&progress](double done) { progress.update(done); });
    }
    if (!options->cost_runs.empty()) {
      ProgressLine progress("reading --costs-from traces");
      const std::vector<std::string> cost_runs = readable_traces(options->cost_runs);
      analyzer::add_cost_runs(input, {cost_runs.begin(), cost_runs.end()},
                              [&progress](double done) { progress.update(done); });
    }
    const analyzer::TuneResult result = analyzer::tune_allreduce(std::move(input), tune);
    write_report(options->report, analyzer::tune_report(result), analyzer::tune_report_formats());
    return 0;
  });
}

}  // namespace parity::cli
