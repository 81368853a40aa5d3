// Where on the timeline a finding's evidence lies. The analyzer names the
// steps behind a finding in its evidence lines ("first step 0: 2.10 s; ...",
// "slowest: step 41 (12.1 ms), step 17 (...)"), not in its machine-readable
// numbers, so the first step named there is the evidence, located through the
// finding's rank's step times (the focus rank's for a finding about the whole
// run). A finding about a share or a mean over the run (data-bound, comm-tail,
// straggler, ...) names no step and has no place on the timeline.
#pragma once

#include <cstdint>
#include <optional>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/gui/view_state.hpp"

namespace parity::gui {

struct EvidenceLocation {
  std::int64_t rank = 0;
  std::int64_t step = 0;
  TimeWindow range;  // the step's start to its end, on that rank's clock
};

std::optional<EvidenceLocation> locate_evidence(const analyzer::Finding& finding,
                                                const analyzer::ProfileReport& report);

}  // namespace parity::gui
