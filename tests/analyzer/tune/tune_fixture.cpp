#include "tune_fixture.hpp"

#include <algorithm>

#include "parity/profiler/trace_writer.hpp"

namespace tune_fixture {
namespace {

using namespace parity::profiler;

constexpr TrackId kMain = 1, kLane = 2, kCalibrationTrack = 3;
enum Name : NameId {
  kEmpty,
  kMainName,
  kLaneName,
  kStep,
  kForward,
  kBackward,
  kWait,
  kOptimizer,
  kCalibrationName
};
constexpr std::int64_t kStepPeriod = 100'000'000, kBackwardStart = 10'000'000;

struct StepTimes {
  std::vector<std::int64_t> end;                      // per bucket
  std::vector<std::vector<std::int64_t>> rank_start;  // per rank, per bucket: when it joined
  std::int64_t reduced = 0;                           // the end of bucket 0
};

std::int64_t ready_of(const Run& run, std::size_t rank, std::size_t param, int step) {
  return run.ready[rank][param] * (step == 0 ? kWarmUpFactor : 1);
}

// The in-order schedule of one step, times after backward starts.
StepTimes schedule(const Run& run, int step) {
  StepTimes times;
  times.rank_start.assign(run.ready.size(), std::vector<std::int64_t>(run.buckets.size()));
  times.end.resize(run.buckets.size());
  std::int64_t lane_free = 0;
  for (std::size_t k = run.buckets.size(); k-- > 0;) {
    std::int64_t bytes = 0, everywhere = 0;
    for (std::size_t rank = 0; rank < run.ready.size(); ++rank) {
      std::int64_t ready = 0;
      for (std::uint32_t p = run.buckets[k].first; p <= run.buckets[k].last; ++p)
        ready = std::max(ready, ready_of(run, rank, p, step));
      times.rank_start[rank][k] = std::max(ready, lane_free);
      everywhere = std::max(everywhere, times.rank_start[rank][k]);
    }
    for (std::uint32_t p = run.buckets[k].first; p <= run.buckets[k].last; ++p)
      bytes += run.param_bytes[p];
    times.end[k] = lane_free = everywhere + run.cost(bytes);
  }
  times.reduced = times.end.front();
  return times;
}

void write_rank(const std::filesystem::path& path, const Run& run, std::size_t rank) {
  TraceWriter writer(path);
  writer.begin();
  const char* names[] = {"",
                         "main",
                         "allreduce",
                         "step",
                         "forward",
                         "backward",
                         "allreduce_wait",
                         "optimizer",
                         "allreduce_calibration"};
  for (NameId id = 0; id < std::size(names); ++id) writer.add_string(id, names[id]);
  writer.set_meta("rank", std::to_string(rank));
  writer.set_meta("world_size",
                  std::to_string(run.world_size ? run.world_size : int(run.ready.size())));
  if (!run.split_meta.empty()) writer.set_meta("trainer.allreduce_split", run.split_meta);
  writer.add(TrackRow{kMain, TrackKind::kHostThread, kMainName, 100, 100, {}, {}});
  writer.add(TrackRow{kLane, TrackKind::kCollective, kLaneName, {}, {}, {}, {}});
  writer.add(TrackRow{kCalibrationTrack, TrackKind::kCollective, kCalibrationName, {}, {}, {}, {}});
  // The sweep runs before step 0 (which starts at 0), one message after the other.
  std::int64_t sweep_at = -kStepPeriod;
  for (std::size_t k = 0; k < run.calibration_bytes.size(); ++k) {
    const std::int64_t bytes = run.calibration_bytes[k], cost = run.calibration_cost(bytes);
    writer.add(CollectiveRow{kCalibrationTrack, sweep_at, cost, CollectiveOp::kAllReduce, bytes,
                             "float32", std::int64_t(k), 0, 0, std::int64_t(rank), 0});
    sweep_at += cost;
  }
  for (std::size_t p = 0; p < run.param_bytes.size(); ++p)
    writer.add(
        ParameterRow{std::int64_t(p), "p" + std::to_string(p), "1", "float32", run.param_bytes[p]});
  std::int64_t id = 1;
  for (int step = 0; step < run.steps; ++step) {
    const StepTimes times = schedule(run, step);
    const std::int64_t start = step * kStepPeriod, backward = start + kBackwardStart;
    std::int64_t last_ready = 0;
    for (std::size_t p = 0; p < run.param_bytes.size(); ++p)
      last_ready = std::max(last_ready, ready_of(run, rank, p, step));
    const std::int64_t backward_end = backward + last_ready + run.backward_tail;
    const std::int64_t reduced = backward + times.reduced;
    const std::int64_t end = std::max(reduced, backward_end) + 2'000'000;
    const std::int64_t step_id = id++;
    writer.add(RangeRow{kMain, start, step_id, end - start, kStep, Category::kStep, 0, {}, step});
    writer.add(RangeRow{kMain,
                        start + 1'000,
                        id++,
                        kBackwardStart - 2'000,
                        kForward,
                        Category::kPhase,
                        1,
                        step_id,
                        {}});
    writer.add(RangeRow{kMain,
                        backward,
                        id++,
                        backward_end - backward,
                        kBackward,
                        Category::kPhase,
                        1,
                        step_id,
                        {}});
    const std::int64_t waited = std::max(reduced, backward_end);
    if (run.allreduce_wait)
      writer.add(RangeRow{kMain,
                          backward_end,
                          id++,
                          waited - backward_end,
                          kWait,
                          Category::kPhase,
                          1,
                          step_id,
                          {}});
    writer.add(
        RangeRow{kMain, waited, id++, 1'000'000, kOptimizer, Category::kPhase, 1, step_id, {}});
    writer.add(StepRow{step, kMain, start, end});
    for (std::size_t p = 0; p < run.param_bytes.size(); ++p)
      writer.add(GradReadyRow{step, std::int64_t(p), backward + ready_of(run, rank, p, step),
                              run.param_bytes[p], kMain});
    for (std::size_t k = 0; k < run.buckets.size(); ++k) {
      std::int64_t bytes = 0;
      for (std::uint32_t p = run.buckets[k].first; p <= run.buckets[k].last; ++p)
        bytes += run.param_bytes[p];
      const std::int64_t rank_start = backward + times.rank_start[rank][k];
      writer.add(CollectiveRow{kLane, rank_start, backward + times.end[k] - rank_start,
                               CollectiveOp::kAllReduce, bytes, "float32", std::int64_t(k),
                               run.buckets[k].first, run.buckets[k].last, std::int64_t(rank),
                               step});
    }
  }
  writer.set_meta("complete", "1");
  writer.commit();
  writer.finalize();
}

}  // namespace

std::vector<std::filesystem::path> write_run(const std::filesystem::path& base, const Run& run) {
  std::vector<std::filesystem::path> paths;
  for (std::size_t rank = 0; rank < run.ready.size(); ++rank) {
    paths.push_back(base.string() + ".rank" + std::to_string(rank) + ".db");
    write_rank(paths.back(), run, rank);
  }
  return paths;
}

std::int64_t expected_exposed_ns(const Run& run) {
  std::int64_t last_ready = 0;
  for (std::size_t rank = 0; rank < run.ready.size(); ++rank)
    for (std::size_t p = 0; p < run.param_bytes.size(); ++p)
      last_ready = std::max(last_ready, ready_of(run, rank, p, 1));
  return schedule(run, 1).reduced - last_ready;
}

std::int64_t expected_wait_ns(const Run& run) {
  return std::max<std::int64_t>(0, expected_exposed_ns(run) - run.backward_tail);
}

}  // namespace tune_fixture
