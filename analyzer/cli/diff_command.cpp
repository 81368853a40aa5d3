// `parity diff A B`: pairs and compares every tensor of two checkpoints.
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "parity/analyzer/weights/diff_report.hpp"
#include "parity/analyzer/weights/weight_diff.hpp"
#include "parity/core/error.hpp"
#include "progress.hpp"

namespace parity::cli {

void add_diff_command(CLI::App& app, Run& run) {
  struct Options {
    std::string a, b, map = "auto", format = "text", output;
    std::optional<double> rtol, atol;
    std::vector<std::string> tolerances;
    unsigned threads = 0;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "diff",
      "Compare two checkpoints parameter by parameter (.pth .pt .ckpt .safetensors .npy .npz, "
      "any pair of formats), pairing names across naming schemes. Exit code 0 when every pair "
      "agrees, 1 when some do not, 2 on bad input");
  command->add_option("a", options->a, "First checkpoint (A)")->required();
  command->add_option("b", options->b, "Second checkpoint (B), the reference of relative differences")
      ->required();
  command->add_option("--map", options->map,
                      "How names pair: auto (default), structure, a built-in map (identity, "
                      "mindspore-to-torch, torch-to-mindspore, modelzoo-to-torch, torch-to-modelzoo) "
                      "or a YAML/JSON rule file");
  command->add_option("--rtol", options->rtol, "Relative tolerance for every pair (default: by dtype)");
  command->add_option("--atol", options->atol, "Absolute tolerance for every pair (default: by dtype)");
  command->add_option("--tol", options->tolerances,
                      "GLOB=RTOL,ATOL: tolerances for parameters whose A or B name matches GLOB "
                      "(repeatable; the first match wins)");
  command->add_option("--format", options->format, "Report format: text, json, csv, md or junit")
      ->check(CLI::IsMember({"text", "json", "csv", "md", "junit"}));
  command->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
  command->add_option("--threads", options->threads, "Pairs compared at once (default: one per core)");
  command->callback([&run, options] {
    run = [options] {
      analyzer::DiffOptions diff_options;
      diff_options.map = options->map;
      diff_options.rtol = options->rtol;
      diff_options.atol = options->atol;
      diff_options.threads = options->threads;
      for (const std::string& text : options->tolerances)
        diff_options.overrides.push_back(analyzer::parse_tolerance_override(text));
      const auto a = importers::open_tensor_file(options->a);
      const auto b = importers::open_tensor_file(options->b);
      ProgressLine progress("comparing");
      diff_options.progress = [&progress](std::size_t done, std::size_t total) {
        progress.update(static_cast<double>(done) / static_cast<double>(total));
      };
      const analyzer::WeightDiff diff = analyzer::diff_checkpoints(*a, *b, diff_options);
      if (options->output.empty()) {
        analyzer::write_diff_report(diff, options->format, std::cout);
      } else {
        std::ofstream out(options->output, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot write the report", options->output, "check the directory exists");
        analyzer::write_diff_report(diff, options->format, out);
        out.close();
        if (!out) throw Error("writing the report failed", options->output, "check free disk space");
      }
      return diff.all_agree() ? 0 : 1;
    };
  });
}

}  // namespace parity::cli
