#include "parity/analyzer/tune/tune_input.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "parity/analyzer/profile/distribution.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

constexpr std::int64_t kMissing = std::numeric_limits<std::int64_t>::min();

// One rank's steps that can be used: every parameter's ready time (ns after
// that step's backward start) and the step's AllReduces.
struct RankSteps {
  std::map<std::int64_t, std::vector<std::int64_t>> ready;  // step -> offset per parameter
  std::map<std::int64_t, std::vector<const BucketAllreduce*>> allreduces;
};

RankSteps complete_steps(const RankTrace& trace) {
  RankSteps steps;
  const std::size_t params = trace.param_names.size();
  for (const GradientReady& row : trace.ready) {
    const auto step = trace.steps.find(row.step);
    if (step == trace.steps.end() || !step->second.backward_start_ns) continue;
    auto& offsets = steps.ready[row.step];
    offsets.resize(params, kMissing);
    offsets[static_cast<std::size_t>(row.param)] = row.ts_ns - *step->second.backward_start_ns;
  }
  std::erase_if(steps.ready, [](const auto& step) {
    return std::find(step.second.begin(), step.second.end(), kMissing) != step.second.end();
  });
  for (const BucketAllreduce& row : trace.allreduces) steps.allreduces[row.step].push_back(&row);
  return steps;
}

void check_ranks_belong_together(const std::vector<RankTrace>& ranks) {
  const RankTrace& first = ranks.front();
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    const RankTrace& other = ranks[i];
    if (other.rank == ranks[i - 1].rank)
      throw Error("two traces are rank " + std::to_string(other.rank),
                  ranks[i - 1].path + " and " + other.path,
                  "pass each rank's trace of one run once (RUN.rank0.db, RUN.rank1.db, ...)");
    if (other.param_names.size() != first.param_names.size())
      throw Error("the traces have different parameter counts (" +
                      std::to_string(first.param_names.size()) + " and " +
                      std::to_string(other.param_names.size()) + ")",
                  first.path + " and " + other.path,
                  "pass the traces of one run, every rank's once");
    if (other.world_size != first.world_size)
      throw Error("the traces have different world sizes (" + std::to_string(first.world_size) +
                      " and " + std::to_string(other.world_size) + ")",
                  first.path + " and " + other.path,
                  "pass the traces of one run, every rank's once");
  }
}

// The steps complete on every rank, in order.
std::vector<std::int64_t> common_steps(const std::vector<RankSteps>& ranks) {
  std::vector<std::int64_t> steps;
  for (const auto& [step, offsets] : ranks.front().ready) {
    const bool everywhere = std::all_of(ranks.begin(), ranks.end(), [step](const RankSteps& rank) {
      return rank.ready.contains(step) && rank.allreduces.contains(step);
    });
    if (everywhere) steps.push_back(step);
  }
  return steps;
}

double median(std::vector<double> values) { return distribution_of(values).median_ns; }

std::vector<BackwardRecord> backward_records(const std::vector<RankTrace>& traces,
                                             const std::vector<RankSteps>& ranks,
                                             const std::vector<std::int64_t>& steps) {
  std::vector<BackwardRecord> records;
  for (std::size_t r = 0; r < traces.size(); ++r)
    for (const std::int64_t step : steps) {
      const RankStep& timing = traces[r].steps.at(step);
      const auto start = double(*timing.backward_start_ns);
      BackwardRecord& record = records.emplace_back();
      record.rank = traces[r].rank;
      record.step = step;
      for (const std::int64_t offset : ranks[r].ready.at(step))
        record.ready_ns.push_back(double(offset));
      record.end_ns = double(*timing.backward_end_ns) - start;
      for (const BucketAllreduce* row : ranks[r].allreduces.at(step))
        record.allreduces.push_back({double(row->start_ns) - start,
                                     double(row->start_ns + row->dur_ns) - start,
                                     double(row->bytes)});
    }
  return records;
}

std::vector<std::uint64_t> parameter_bytes(const RankTrace& trace, std::int64_t step) {
  std::vector<std::uint64_t> bytes(trace.param_names.size(), 0);
  for (const GradientReady& row : trace.ready)
    if (row.step == step) bytes[static_cast<std::size_t>(row.param)] = row.bytes;
  return bytes;
}

std::vector<profiler::GradientBucket> traced_buckets(const RankTrace& trace, const RankSteps& steps,
                                                     std::int64_t step) {
  std::vector<profiler::GradientBucket> buckets;
  for (const BucketAllreduce* row : steps.allreduces.at(step)) buckets.push_back(row->bucket);
  std::uint32_t next = 0;
  for (const profiler::GradientBucket& bucket : buckets) {
    if (bucket.first != next)
      throw Error(
          "the AllReduce buckets do not cover the parameters one after another: a bucket "
          "starts at parameter " +
              std::to_string(bucket.first) + " where " + std::to_string(next) + " was expected",
          trace.path + ": collective of step " + std::to_string(step),
          "the trainer must reduce every gradient in contiguous buckets; record again");
    next = bucket.last + 1;
  }
  if (next != trace.param_names.size())
    throw Error("the AllReduce buckets end at parameter " + std::to_string(next) +
                    ", but the model has " + std::to_string(trace.param_names.size()),
                trace.path + ": collective of step " + std::to_string(step),
                "the trainer must reduce every gradient; record again");
  return buckets;
}

// Per step and bucket the shortest duration across ranks, when every rank has
// it, into input.samples and, by what that rank ran beside it, into
// busy_samples, idle_samples or straddle_samples.
void cost_samples(const std::vector<RankTrace>& traces, const std::vector<RankSteps>& ranks,
                  TuneInput& input) {
  for (const std::int64_t step : input.steps) {
    std::map<std::pair<std::uint32_t, std::uint32_t>,
             std::pair<const BucketAllreduce*, std::size_t>>
        shortest;  // bucket -> (row, rank)
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> seen;
    for (std::size_t r = 0; r < ranks.size(); ++r)
      for (const BucketAllreduce* row : ranks[r].allreduces.at(step)) {
        const std::pair key{row->bucket.first, row->bucket.last};
        auto [it, added] = shortest.try_emplace(key, row, r);
        if (row->dur_ns < it->second.first->dur_ns) it->second = {row, r};
        ++seen[key];
      }
    for (const auto& [bucket, chosen] : shortest) {
      if (seen[bucket] != ranks.size()) continue;
      const auto& [row, r] = chosen;
      const AllreduceSample sample{static_cast<std::uint64_t>(row->bytes), double(row->dur_ns)};
      input.samples.push_back(sample);
      const std::int64_t backward_end = *traces[r].steps.at(step).backward_end_ns;
      const std::int64_t end = row->start_ns + row->dur_ns;
      if (end <= backward_end)
        input.busy_samples.push_back(sample);
      else if (row->start_ns >= backward_end)
        input.idle_samples.push_back(sample);
      else
        input.straddle_samples.push_back(
            {sample.bytes, double(backward_end - row->start_ns), double(end - backward_end)});
    }
  }
  // The calibration sweep: the k-th AllReduce of every rank is one collective.
  std::size_t sweep = traces.front().calibration.size();
  for (const RankTrace& trace : traces) sweep = std::min(sweep, trace.calibration.size());
  for (std::size_t k = 0; k < sweep; ++k) {
    double shortest = std::numeric_limits<double>::infinity();
    for (const RankTrace& trace : traces)
      shortest = std::min(shortest, double(trace.calibration[k].dur_ns));
    input.idle_samples.push_back(
        {static_cast<std::uint64_t>(traces.front().calibration[k].bytes), shortest});
  }
}

void measured_times(const std::vector<RankTrace>& traces, const std::vector<RankSteps>& ranks,
                    TuneInput& input) {
  std::vector<double> step_times, waits, tails;
  for (const std::int64_t step : input.steps) {
    double slowest = 0, least_wait = std::numeric_limits<double>::infinity();
    std::int64_t backward_end = 0, last_ready = 0;
    bool every_rank_waited = true;
    for (std::size_t r = 0; r < traces.size(); ++r) {
      const RankStep& timing = traces[r].steps.at(step);
      slowest = std::max(slowest, double(timing.step_ns));
      every_rank_waited = every_rank_waited && timing.allreduce_wait_ns.has_value();
      least_wait = std::min(least_wait, double(timing.allreduce_wait_ns.value_or(0)));
      backward_end = std::max(backward_end, *timing.backward_end_ns - *timing.backward_start_ns);
      const std::vector<std::int64_t>& offsets = ranks[r].ready.at(step);
      last_ready = std::max(last_ready, *std::max_element(offsets.begin(), offsets.end()));
    }
    step_times.push_back(slowest);
    tails.push_back(double(std::max<std::int64_t>(0, backward_end - last_ready)));
    if (every_rank_waited) waits.push_back(least_wait);
  }
  input.step_ns = median(std::move(step_times));
  input.backward_tail_ns = median(std::move(tails));
  if (!waits.empty())
    input.allreduce_wait_ns = median(std::move(waits));
  else
    input.notes.push_back(
        "the traces have no allreduce_wait phase: the communication the steps waited for is "
        "unknown, and step times are predicted from the current split's predicted wait");
}

void check_split_meta(const RankTrace& trace, TuneInput& input) {
  if (!trace.split) {
    input.traced_split = profiler::end_index_text(input.traced_buckets);
    return;
  }
  input.traced_split = *trace.split;
  const std::string where = trace.path + ": meta trainer.allreduce_split";
  const std::vector<profiler::GradientBucket> expected =
      profiler::AllreduceSplit::parse(*trace.split, where).buckets(input.profile.bytes, where);
  if (expected != input.traced_buckets)
    input.notes.push_back("meta trainer.allreduce_split is " + *trace.split + ", which gives " +
                          profiler::end_index_text(expected) + ", but the traced AllReduces used " +
                          profiler::end_index_text(input.traced_buckets) +
                          ": the traced buckets are used");
}

}  // namespace

TuneInput combine_ranks(std::vector<RankTrace> traces) {
  if (traces.empty())
    throw Error("no trace given", "parity tune-allreduce", "pass one .db file per rank of the run");
  std::sort(traces.begin(), traces.end(),
            [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  check_ranks_belong_together(traces);
  TuneInput input;
  input.world_size = traces.front().world_size;
  input.param_names = traces.front().param_names;
  for (const RankTrace& trace : traces) input.paths.push_back(trace.path);
  if (static_cast<std::int64_t>(traces.size()) < input.world_size)
    input.notes.push_back(
        "only " + std::to_string(traces.size()) + " of the " + std::to_string(input.world_size) +
        " ranks' traces were given: ready times and AllReduce costs come from those alone (a "
        "rank's AllReduce may include waiting for the others)");

  std::vector<RankSteps> ranks;
  for (const RankTrace& trace : traces) ranks.push_back(complete_steps(trace));
  input.steps = common_steps(ranks);
  if (input.steps.empty())
    throw Error(
        "no step has a backward phase, every parameter's gradient-ready time and its "
        "AllReduces on every rank",
        input.paths.front() + (traces.size() > 1 ? " and the other ranks' traces" : ""),
        kRecordHint);
  if (input.steps.size() > 2) {
    input.warm_up_step = input.steps.front();
    input.steps.erase(input.steps.begin());
  }
  input.backward = backward_records(traces, ranks, input.steps);
  input.profile = own_progress_profile(input.backward,
                                       parameter_bytes(traces.front(), input.steps.front()), {});
  input.traced_buckets = traced_buckets(traces.front(), ranks.front(), input.steps.front());
  cost_samples(traces, ranks, input);
  measured_times(traces, ranks, input);
  check_split_meta(traces.front(), input);
  return input;
}

TuneInput load_tune_input(const std::vector<std::filesystem::path>& paths,
                          const std::function<void(double)>& progress) {
  std::vector<RankTrace> traces;
  for (const std::filesystem::path& path : paths) {
    traces.push_back(load_rank_trace(path));
    if (progress) progress(double(traces.size()) / double(paths.size()));
  }
  return combine_ranks(std::move(traces));
}

void add_cost_runs(TuneInput& input, const std::vector<std::filesystem::path>& paths,
                   const std::function<void(double)>& progress) {
  std::vector<std::vector<RankTrace>> runs(1);
  for (const std::filesystem::path& path : paths) {
    RankTrace trace = load_rank_trace(path);
    const bool seen = std::any_of(runs.back().begin(), runs.back().end(),
                                  [&](const RankTrace& other) { return other.rank == trace.rank; });
    if (seen) runs.emplace_back();
    runs.back().push_back(std::move(trace));
    if (progress) progress(double(&path - paths.data() + 1) / double(paths.size()));
  }
  for (std::vector<RankTrace>& run : runs) {
    if (run.empty()) continue;
    const std::string first = run.front().path;
    if (run.front().param_names.size() != input.param_names.size())
      throw Error("this run's model has " + std::to_string(run.front().param_names.size()) +
                      " parameters, the tuned run's " + std::to_string(input.param_names.size()),
                  first + " (--costs-from)", "pass runs of the same model to --costs-from");
    TuneInput other = combine_ranks(std::move(run));
    const std::int64_t run_number = &run - runs.data() + 1;
    for (BackwardRecord& record : other.backward) record.run = run_number;
    for (const auto& [to, from] : {std::pair{&input.samples, &other.samples},
                                   std::pair{&input.busy_samples, &other.busy_samples},
                                   std::pair{&input.idle_samples, &other.idle_samples}})
      to->insert(to->end(), from->begin(), from->end());
    input.straddle_samples.insert(input.straddle_samples.end(), other.straddle_samples.begin(),
                                  other.straddle_samples.end());
    input.other_backward.insert(input.other_backward.end(), other.backward.begin(),
                                other.backward.end());
    input.notes.push_back("AllReduce costs also from " + first +
                          (other.paths.size() > 1 ? " and its other ranks" : "") + " (split " +
                          other.traced_split + ")");
  }
}

}  // namespace parity::analyzer
