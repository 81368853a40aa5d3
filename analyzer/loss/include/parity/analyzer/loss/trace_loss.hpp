// The loss curve a trace holds: its counter named `loss` (parity-train
// records one sample per step; an imported Chrome trace has one when its
// 'C' events name a series loss). Read through the trace analysis's loader,
// never by column.
#pragma once

#include <filesystem>

#include "parity/analyzer/loss/loss_curve.hpp"

namespace parity::analyzer {

// Each sample takes the step whose range holds it (or the last step that
// began before it), numbered from 1 like the log lines (the trace's step 0 is
// step 1); in a trace without steps the samples are steps 1, 2, 3, ... in
// time order. Throws parity::Error for a file that is not a readable trace or
// has no loss counter (naming the counters it has).
LossCurve read_trace_loss(const std::filesystem::path& trace_path);

}  // namespace parity::analyzer
