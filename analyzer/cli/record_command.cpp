// `parity record -- COMMAND ARGS...`: profiles any CUDA program through the
// CUDA injection library (libparity_cuda_inject.so), one trace database per
// process that initializes CUDA (see parity/profiler/record_request.hpp).
#include <filesystem>
#include <iostream>
#include <regex>

#include "child_process.hpp"
#include "commands.hpp"
#include "parity/analyzer/trace_summary.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/record_request.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/profiler/trace_reader.hpp"

namespace parity::cli {

namespace {

namespace fs = std::filesystem;
constexpr const char* kLibraryName = "libparity_cuda_inject.so";

struct RecordOptions {
  std::string output = "run.db";
  std::string capture = "whole";
  std::string nvtx_range;
  std::string step_range;
  bool force = false;
  std::vector<std::string> command;
};

// Beside the parity executable (the build tree), in ../lib/parity (an
// install), or where PARITY_CUDA_INJECTION_LIBRARY points.
fs::path injection_library() {
  if (const char* chosen = std::getenv("PARITY_CUDA_INJECTION_LIBRARY")) {
    if (!fs::is_regular_file(chosen))
      throw Error("PARITY_CUDA_INJECTION_LIBRARY names no file", chosen);
    return fs::absolute(chosen);
  }
  const fs::path executable = fs::read_symlink("/proc/self/exe");
  for (const fs::path& candidate :
       {executable.parent_path() / kLibraryName,
        executable.parent_path().parent_path() / "lib" / "parity" / kLibraryName})
    if (fs::is_regular_file(candidate)) return candidate;
  throw Error("this parity was built without CUDA: no " + std::string(kLibraryName) +
                  " beside it or in ../lib/parity",
              executable.string(),
              "build Parity where the CUDA 13 toolkit is installed (docs/gpu.md), or set "
              "PARITY_CUDA_INJECTION_LIBRARY");
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    const bool plain = !word.empty() && word.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    line += plain ? word : "'" + std::regex_replace(word, std::regex("'"), "'\\''") + "'";
  }
  return line;
}

// The databases of one recording: OUTPUT and its STEM.rankR / STEM.pidP siblings.
std::vector<fs::path> recorded_databases(const fs::path& output) {
  const std::regex sibling(std::regex_replace(output.stem().string(),
                                              std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                           R"(\.(rank|pid)[0-9]+)" +
                           std::regex_replace(output.extension().string(), std::regex(R"(\.)"),
                                              R"(\.)"));
  std::vector<fs::path> found;
  if (fs::exists(output)) found.push_back(output);
  for (const fs::directory_entry& entry : fs::directory_iterator(output.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, sibling)) found.push_back(entry.path());
  }
  return found;
}

void clear_previous(const fs::path& output, bool force) {
  const std::vector<fs::path> previous = recorded_databases(output);
  if (previous.empty()) return;
  if (!force)
    throw Error("a recording is already there", previous.front().string(),
                "choose another --output, or pass --force to replace it");
  for (const fs::path& database : previous)
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(database.string() + suffix);
}

// No process initialized CUDA (no driver, no device, or a program that does
// not use CUDA): the output still says what ran and why it holds nothing.
void write_empty_trace(const profiler::RecordRequest& request) {
  profiler::RecorderOptions options;
  options.path = request.output;
  options.capture_at_start = false;
  options.command_line = request.command_line;
  profiler::Recorder recorder(options);
  recorder.set_meta("record.capture_range", profiler::capture_range_name(request.capture));
  if (!request.step_range.empty()) recorder.set_meta("record.step_range", request.step_range);
  recorder.set_meta("record.gpu",
                    "not recorded: no process of the command initialized CUDA (no CUDA device "
                    "or driver, or a program that does not use CUDA)");
}

std::uint64_t table_rows(const analyzer::TraceSummary& summary, const std::string& table) {
  for (const auto& [name, rows] : summary.table_rows)
    if (name == table) return rows;
  return 0;
}

void print_database(const fs::path& database) {
  profiler::TraceReader trace(database);
  const analyzer::TraceSummary summary = analyzer::summarize(trace);
  const auto meta = [&summary](const std::string& key) {
    const auto found = summary.meta.find(key);
    return found == summary.meta.end() ? std::string("?") : found->second;
  };
  std::cout << "parity record: " << database.string() << ": " << table_rows(summary, "gpu_activity")
            << " GPU activities, " << table_rows(summary, "api_call") << " API calls, "
            << table_rows(summary, "range") << " ranges, " << summary.dropped_records
            << " dropped; GPU " << meta("record.gpu")
            << (summary.complete ? "" : " (INCOMPLETE: the process did not finish the trace)")
            << '\n';
}

int record(const RecordOptions& options) {
  profiler::RecordRequest request;
  request.output = fs::absolute(options.output);
  request.capture = profiler::parse_capture_range(options.capture);
  request.nvtx_range = options.nvtx_range;
  request.step_range = options.step_range;
  request.command_line = shell_words(options.command);
  if (request.capture == profiler::CaptureRange::kNvtx && request.nvtx_range.empty())
    throw Error("--capture-range nvtx needs the range's name", "--nvtx-capture",
                "e.g. --capture-range nvtx --nvtx-capture train_step");
  if (request.capture != profiler::CaptureRange::kNvtx && !request.nvtx_range.empty())
    throw Error("--nvtx-capture is used only with --capture-range nvtx", "--nvtx-capture");
  if (!fs::is_directory(request.output.parent_path()))
    throw Error("the output's folder does not exist", request.output.parent_path().string());
  const fs::path library = injection_library();
  clear_previous(request.output, options.force);

  std::vector<std::pair<std::string, std::string>> environment = {
      {"CUDA_INJECTION64_PATH", library.string()}, {"NVTX_INJECTION64_PATH", library.string()}};
  for (auto& variable : profiler::record_environment(request))
    if (variable.first != "PARITY_RECORD_LAUNCHED_PID") environment.push_back(std::move(variable));
  const ChildExit exit = run_child(options.command, environment, "PARITY_RECORD_LAUNCHED_PID");

  std::vector<fs::path> databases = recorded_databases(request.output);
  if (databases.empty()) {
    write_empty_trace(request);
    databases.push_back(request.output);
  }
  for (const fs::path& database : databases) print_database(database);
  if (exit.signal != 0)
    std::cerr << "parity record: the command was ended by signal " << exit.signal << '\n';
  else if (exit.status != 0)
    std::cerr << "parity record: the command exited with status " << exit.status << '\n';
  return exit.status;
}

}  // namespace

void add_record_command(CLI::App& app, Run& run) {
  const auto [command, options] = add_subcommand<RecordOptions>(
      app, "record",
      "Profile any CUDA program: kernels, copies, memsets, synchronization, CUDA runtime and "
      "driver API calls and NVTX ranges into one trace database per process, through a CUPTI "
      "injection library (no change to the program). Exits with the program's exit status");
  command->add_option("-o,--output", options->output,
                      "Trace database of the launched process; other processes write "
                      "STEM.rankR.db (with a rank) or STEM.pidP.db")
      ->capture_default_str();
  command
      ->add_option("--capture-range", options->capture,
                   "What to record: whole (from CUDA's start to exit), nvtx (inside each NVTX "
                   "range named by --nvtx-capture), cudaProfilerApi (between cudaProfilerStart "
                   "and cudaProfilerStop)")
      ->check(CLI::IsMember({"whole", "nvtx", "cudaProfilerApi"}))
      ->capture_default_str();
  command->add_option("--nvtx-capture", options->nvtx_range,
                      "The NVTX range that opens the window, with --capture-range nvtx");
  command->add_option("--nvtx-step", options->step_range,
                      "An NVTX range that is one training step: each becomes a step of the "
                      "trace (numbered from 0), so that parity report can read it");
  command->add_flag("--force", options->force, "Replace the databases of an earlier recording");
  command->add_option("command", options->command, "The program and its arguments, after --")
      ->required();
  when_chosen(command, run, [options = options] { return record(*options); });
}

}  // namespace parity::cli
