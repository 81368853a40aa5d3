// RunPair: the analyses behind the panels when two separate runs are open
// (`parity-view ours.db theirs.db`): run A (the first trace opened, the
// reference) and run B (the second, the run under test), each analyzed as
// `parity report` analyzes one run, and B against A as `parity diff-trace A B`
// compares them, so the window says what the command says.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/profile/trace_diff.hpp"

namespace parity::gui {

enum class Run { kA, kB };

struct RunPair {
  std::shared_ptr<const analyzer::ProfileReport> a, b;
  analyzer::TraceDiff diff;  // of the runs' focus ranks, at diff-trace's default threshold

  const analyzer::ProfileReport& report(Run run) const { return run == Run::kA ? *a : *b; }
};

// "A" or "B".
const char* run_name(Run run);

// Analyzes both traces (plain Parity databases; a foreign trace is converted
// first, see importers' readable_trace) and diffs them. `progress(fraction)`
// may be empty. Throws parity::Error naming the file that cannot be analyzed.
RunPair analyze_run_pair(const std::filesystem::path& a, const std::filesystem::path& b,
                         const std::function<void(double)>& progress = {});

}  // namespace parity::gui
