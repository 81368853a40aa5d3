#include "parity/analyzer/profile/idle_analysis.hpp"

#include <algorithm>
#include <map>

namespace parity::analyzer {
namespace {

std::vector<Interval> data_wait_intervals(const TraceData& trace) {
  std::vector<Interval> waits;
  for (const TraceRange& range : trace.ranges)
    if (range.category == profiler::Category::kPhase &&
        phase_part(trace.name(range.name)) == StepPart::kDataWait)
      waits.push_back({range.start_ns, range.end_ns});
  return merge_intervals(std::move(waits));
}

std::int64_t step_at(const StepAnalysis& steps, std::int64_t ts) {
  const auto it =
      std::upper_bound(steps.steps.begin(), steps.steps.end(), ts,
                       [](std::int64_t t, const StepBreakdown& s) { return t < s.start_ns; });
  if (it == steps.steps.begin()) return kNoStep;
  const StepBreakdown& step = *(it - 1);
  return ts < step.start_ns + step.dur_ns ? step.step : kNoStep;
}

}  // namespace

std::string_view idle_cause_name(IdleCause cause) {
  switch (cause) {
    case IdleCause::kHost:
      return "host";
    case IdleCause::kData:
      return "data";
    case IdleCause::kCommunication:
      return "communication";
  }
  return "host";
}

std::vector<IdleTrack> analyze_idle(const TraceData& trace, const StepAnalysis& steps) {
  std::vector<IdleTrack> tracks;
  if (trace.gpu_activities.empty() || steps.steady_spans.empty()) return tracks;
  const std::vector<Interval> data = data_wait_intervals(trace);
  const std::vector<Interval> comm = collective_intervals(trace);
  // Each gap: its data-wait part, then the communication part of the rest, then host.
  const auto attribute = [&](IdleTrack& track, Interval gap) {
    if (gap.length() <= 0) return;
    const std::int64_t in_data = covered_length(data, gap);
    // Communication time that was also data wait counts once, as data.
    const std::int64_t comm_only = covered_length(comm, gap) - covered_by_both(data, comm, gap);
    const std::int64_t host = gap.length() - in_data - comm_only;
    track.idle_by_cause[static_cast<std::size_t>(IdleCause::kData)] += in_data;
    track.idle_by_cause[static_cast<std::size_t>(IdleCause::kCommunication)] += comm_only;
    track.idle_by_cause[static_cast<std::size_t>(IdleCause::kHost)] += host;
    track.idle_ns += gap.length();
    IdleCause cause = IdleCause::kHost;
    if (in_data >= comm_only && in_data > host)
      cause = IdleCause::kData;
    else if (comm_only > host)
      cause = IdleCause::kCommunication;
    track.longest.push_back({gap.start_ns, gap.length(), step_at(steps, gap.start_ns), cause});
    // Keep only the longest few while scanning, so memory stays flat.
    if (track.longest.size() > 4 * kLongestGaps) {
      std::partial_sort(track.longest.begin(), track.longest.begin() + kLongestGaps,
                        track.longest.end(),
                        [](const IdleGap& a, const IdleGap& b) { return a.dur_ns > b.dur_ns; });
      track.longest.resize(kLongestGaps);
    }
  };

  std::int64_t window_ns = 0;
  for (const Interval& span : steps.steady_spans) window_ns += span.length();
  std::size_t begin = 0;
  const auto& activities = trace.gpu_activities;
  while (begin < activities.size()) {
    std::size_t end = begin;
    std::vector<Interval> busy;
    for (; end < activities.size() && activities[end].track == activities[begin].track; ++end)
      busy.push_back({activities[end].start_ns, activities[end].end_ns});
    busy = merge_intervals(std::move(busy));
    IdleTrack track;
    track.track = trace.track_label(activities[begin].track);
    track.window_ns = window_ns;
    for (const Interval& span : steps.steady_spans)
      for (const Interval& gap : gaps_within(busy, span)) attribute(track, gap);
    track.busy_ns = track.window_ns - track.idle_ns;
    std::sort(track.longest.begin(), track.longest.end(),
              [](const IdleGap& a, const IdleGap& b) { return a.dur_ns > b.dur_ns; });
    if (track.longest.size() > kLongestGaps) track.longest.resize(kLongestGaps);
    tracks.push_back(std::move(track));
    begin = end;
  }
  return tracks;
}

}  // namespace parity::analyzer
