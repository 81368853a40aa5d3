// `parity import FILE -o RUN.db`: a foreign trace (the PyTorch profiler's
// Chrome trace JSON, an Nsight Systems SQLite export) as a Parity trace
// database, with what it held and what it could not give.
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "progress.hpp"

namespace parity::cli {
namespace {

namespace fs = std::filesystem;

// trace.json.gz -> trace.db, beside the input; a folder prof/ -> prof.db.
fs::path default_output(const fs::path& input) {
  fs::path output = input.has_filename() ? input : input.parent_path();
  if (output.extension() == ".gz") output.replace_extension();
  output.replace_extension(".db");
  return output;
}

}  // namespace

void add_import_command(CLI::App& app, Run& run) {
  struct Options {
    std::string input, output;
    bool force = false;
    std::optional<std::int64_t> rank;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "import",
      "Convert a foreign trace into a Parity trace database: the PyTorch profiler's "
      "export_chrome_trace JSON (Kineto's or the legacy profiler's, plain or .gz), an Nsight "
      "Systems SQLite export (nsys export --type sqlite), or MindSpore's profiler output (its "
      "profiler/ folder, or a timeline JSON). Prints what "
      "was imported, what was not (by kind, never dropped silently) and what the source cannot "
      "give. Every command that reads traces also takes such files directly. Exit code 0 on "
      "success, 2 when the file is not a trace Parity reads");
  command
      ->add_option("input", options->input,
                   "The trace to import (.json, .json.gz, nsys .sqlite, or a MindSpore profiler "
                   "folder)")
      ->required();
  command->add_option("-o,--output", options->output,
                      "The trace database to write (default: the input's name with .db)");
  command->add_flag("--force", options->force, "Replace the output if it exists");
  command->add_option("--rank", options->rank,
                      "The rank to read from a MindSpore profiler folder of several (default: "
                      "the lowest)");
  when_chosen(command, run, [options = options] {
    const fs::path output =
        options->output.empty() ? default_output(options->input) : fs::path(options->output);
    if (fs::exists(output) && !options->force)
      throw Error("the output exists", output.string(), "pass --force to replace it");
    fs::path partial = output;
    partial += ".partial";
    std::error_code ignored;
    fs::remove(partial, ignored);
    importers::trace::ImportOptions import_options;
    import_options.rank = options->rank;
    ProgressLine progress("importing");
    import_options.progress = [&progress](std::uint64_t done, std::uint64_t total) {
      progress.update(static_cast<std::size_t>(done), static_cast<std::size_t>(total));
    };
    try {
      const auto summary = importers::trace::import_trace(options->input, partial, import_options);
      fs::rename(partial, output);
      std::cout << summary.text() << "wrote " << output.string() << '\n';
    } catch (...) {
      fs::remove(partial, ignored);
      throw;
    }
    return 0;
  });
}

}  // namespace parity::cli
