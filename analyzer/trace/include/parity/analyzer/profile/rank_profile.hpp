// RankProfile: every analysis of one rank's trace, and the comparison of
// ranks that finds stragglers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "parity/analyzer/profile/comm_analysis.hpp"
#include "parity/analyzer/profile/counter_analysis.hpp"
#include "parity/analyzer/profile/data_analysis.hpp"
#include "parity/analyzer/profile/idle_analysis.hpp"
#include "parity/analyzer/profile/op_analysis.hpp"
#include "parity/analyzer/profile/step_analysis.hpp"
#include "parity/analyzer/profile/thresholds.hpp"
#include "parity/analyzer/profile/trace_data.hpp"

namespace parity::analyzer {

struct RankProfile {
  std::string path;
  std::int64_t rank = 0, world_size = 1;
  // command_line, host, tool_version, created_at; for imported traces
  // import.source_kind and import.not_given (what the source cannot give, a line each)
  std::map<std::string, std::string> meta;
  bool complete = false;
  std::uint64_t dropped_records = 0;
  std::uint64_t events = 0;
  StepAnalysis steps;
  OpAnalysis ops;
  DataAnalysis data;
  CommAnalysis comm;
  std::vector<IdleTrack> idle;
  CounterAnalysis counters;
};

RankProfile analyze_trace(const TraceData& trace, const Thresholds& thresholds);

struct RankRow {
  std::int64_t rank = 0;
  std::string path;
  std::int64_t steps = 0;
  Distribution step_time;  // steady state
  std::array<double, kStepParts> part_mean_ns{};
  double work_ns = 0;    // median steady step less its exposed communication
  double vs_median = 0;  // (work - the ranks' median work) / the ranks' median work
  bool straggler = false;
};

// In synchronous data-parallel training every rank's step lasts as long as
// the slowest rank's: the others wait for it in the AllReduce. So stragglers
// are found by their work, the step less its exposed communication (compute
// and data wait), not by their step time.
struct RankComparison {
  std::vector<RankRow> rows;  // by rank
  double median_step_ns = 0;  // median over ranks of each rank's median step
  double median_work_ns = 0;  // median over ranks of each rank's work
};

// Throws parity::Error when two traces claim the same rank.
RankComparison compare_ranks(const std::vector<RankProfile>& ranks, const Thresholds& thresholds);

}  // namespace parity::analyzer
