// `parity synth -o OUT.db`: writes a synthetic ResNet-50 training trace of a
// chosen size, for benchmarks and tests of the analyzer and the viewer.
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "parity/analyzer/synth/synth.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "progress.hpp"

namespace parity::cli {

void add_synth_command(CLI::App& app, Run& run) {
  struct Options {
    analyzer::SynthOptions synth;
    std::string output;
    bool cpu_only = false;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "synth",
      "Write a synthetic trace of ResNet-50 data-parallel training (host ranges, CUDA launches "
      "and kernels, data queue, counters, gradient buckets and AllReduce), deterministic for a "
      "seed; several ranks write OUT.rank0.db, OUT.rank1.db, ...");
  command->add_option("-o,--output", options->output, "Trace database to write (must not exist)")
      ->required();
  command->add_option("--events", options->synth.events,
                      "Rows per rank across the event tables, to within one step (default: "
                      "100000)");
  command->add_option("--ranks", options->synth.ranks,
                      "Data-parallel ranks, one file each (default: 1)");
  command->add_option("--seed", options->synth.seed,
                      "Seed: the same seed writes the same rows (default: 1)");
  command->add_flag(
      "--cpu-only", options->cpu_only,
      "A CPU-only trace (oneDNN trainer, MPI): no GPU streams, kernels or CUDA calls");
  command->add_option("--straggler-rank", options->synth.straggler_rank,
                      "Make this rank's compute 25% slower");
  when_chosen(command, run, [options = options] {
    analyzer::SynthOptions synth = options->synth;
    synth.gpu = !options->cpu_only;
    std::vector<std::filesystem::path> paths;
    {
      ProgressLine progress("writing");
      paths = analyzer::write_synth_trace(synth, options->output,
                                          [&progress](double done) { progress.update(done); });
    }
    for (const std::filesystem::path& path : paths) {
      profiler::TraceReader trace(path);
      std::cout << "wrote " << path.string() << ": " << trace.meta_value("synth.rows").value_or("?")
                << " rows, " << std::filesystem::file_size(path) << " bytes\n";
    }
    return 0;
  });
}

}  // namespace parity::cli
