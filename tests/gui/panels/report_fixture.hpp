// The reports the panels' tests show: the analyzer's own, built from traces
// written at test time into a directory the test owns (small.db or synth.db:
// one trace per directory).
#pragma once

#include <filesystem>
#include <memory>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/synth/synth.hpp"

namespace panels_test {

using Report = std::shared_ptr<const parity::analyzer::ProfileReport>;

// tests/analyzer/report's small trace: four steps, every number chosen by
// hand (small_trace.hpp), as rank 0 of four.
Report small_trace_report(const std::filesystem::path& dir,
                          const parity::analyzer::Thresholds& thresholds = {});

// A synthetic ResNet-50 trace, one database per rank.
Report synth_report(const std::filesystem::path& dir, const parity::analyzer::SynthOptions& options,
                    const parity::analyzer::Thresholds& thresholds = {});

}  // namespace panels_test
