#include "parity/analyzer/tune/tune_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/tune/split_optimizer.hpp"
#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

// The seeds' ResNet-50 split (all_reduce_fusion_config=[85, 160]), for models
// with at least 161 parameters.
constexpr const char* kSeedsSplit = "index:[85,160]";
constexpr std::size_t kSeedsParameters = 161;

std::size_t message_sizes(const std::vector<AllreduceSample>& samples) {
  std::set<std::uint64_t> sizes;
  for (const AllreduceSample& sample : samples) sizes.insert(sample.bytes);
  return sizes.size();
}

// The idle table from the calibration sweep and the AllReduces after backward;
// the busy table from those during backward and, priced by the idle table,
// those across its end. Traces without enough idle sizes (recorded before the
// sweep existed) get one table of every AllReduce.
CostModel make_cost_model(TuneInput& input, Link link) {
  if (link != Link::kMeasured) return CostModel::preset(link);
  const std::string where = input.paths.front() + (input.paths.size() > 1 ? " ..." : "");
  if (input.world_size < 2)
    throw Error("the trace's world size is " + std::to_string(input.world_size) +
                    ": its AllReduce times say nothing about a link",
                where, "record with several ranks, or pass --link nvlink, ib or ethernet");
  if (message_sizes(input.idle_samples) >= 2) {
    CostTable idle(input.idle_samples, where);
    std::vector<AllreduceSample> busy_samples = input.busy_samples;
    for (const StraddleSample& straddle : input.straddle_samples)
      if (const std::optional<AllreduceSample> busy = busy_cost_of(straddle, idle))
        busy_samples.push_back(*busy);
    std::optional<CostTable> busy;
    if (message_sizes(busy_samples) >= 2) busy.emplace(busy_samples, where);
    return CostModel::measured(std::move(idle), std::move(busy), input.world_size);
  }
  input.notes.push_back(
      "the traces hold no AllReduce calibration sweep and fewer than two message sizes reduced "
      "after backward: every traced AllReduce makes one cost table, used whether backward runs "
      "beside the AllReduce or not (record with a current parity-train for both)");
  return CostModel::measured(CostTable(input.samples, where), std::nullopt, input.world_size);
}

// Buckets of sizes a table did not measure cost what its line says: say so.
void note_extrapolation(const SplitPrediction& optimum, const CostModel& cost,
                        std::vector<std::string>& notes) {
  double smallest = INFINITY, largest = 0;
  for (const BucketTiming& bucket : optimum.schedule.buckets) {
    smallest = std::min(smallest, double(bucket.bytes));
    largest = std::max(largest, double(bucket.bytes));
  }
  for (const auto& [table, kind] :
       {std::pair{&cost.table(), "idle"}, std::pair{&cost.busy_table(), "busy"}}) {
    if (!*table) continue;
    const auto& entries = (*table)->entries();
    if (smallest >= entries.front().bytes && largest <= entries.back().bytes) continue;
    notes.push_back("the optimum has buckets of " + format_bytes(smallest) + " to " +
                    format_bytes(largest) + ", outside the message sizes of the " + kind +
                    " cost table (" + format_bytes(entries.front().bytes) + " to " +
                    format_bytes(entries.back().bytes) +
                    "): their cost is extrapolated along the fitted line; record a run with the "
                    "proposed split and tune again with its traces in --costs-from");
  }
}

// Fits backward's slowdown under AllReduce from every run given and, where it
// is clear, moves the profile to backward's own progress.
ContentionFit fit_backward_contention(TuneInput& input) {
  std::vector<const BackwardRecord*> records;
  for (const auto* list : {&input.backward, &input.other_backward})
    for (const BackwardRecord& record : *list) records.push_back(&record);
  // Negligible: 2 % of backward for a step's gradients.
  const double negligible =
      0.02 * input.profile.compute_end_ns() / std::max(1.0, double(input.profile.total_bytes()));
  const ContentionFit fit = fit_contention(records, negligible);
  if (fit.used()) {
    input.profile = own_progress_profile(input.backward, input.profile.bytes, fit.loss);
  } else if (!fit.determined()) {
    std::string text = "the traces cannot tell how much AllReduces slow backward down";
    if (fit.uniform) {
      char numbers[96];
      std::snprintf(numbers, sizeof numbers, " (fitted %.3g +- %.2g ns a byte)",
                    fit.uniform->ns_per_byte, fit.uniform->standard_error);
      text += numbers;
    }
    input.notes.push_back(
        text + ": assumed not at all; " +
        (fit.runs < 2 ? "it needs a run that reduces a different amount during backward: "
                        "record one with --set allreduce_split=one (none at all) and tune again "
                        "with its traces in --costs-from"
                      : "the runs given disagree more than the model allows (an AllReduce's cost "
                        "to backward may not grow with its bytes alone on this machine)"));
  }
  return fit;
}

std::vector<profiler::GradientBucket> buckets_of(const std::string& split,
                                                 const GradientProfile& profile,
                                                 const std::string& where) {
  return profiler::AllreduceSplit::parse(split, where).buckets(profile.bytes, where);
}

}  // namespace

std::vector<profiler::GradientBucket> SplitPrediction::buckets() const {
  std::vector<profiler::GradientBucket> buckets;
  for (const BucketTiming& timing : schedule.buckets) buckets.push_back(timing.bucket);
  return buckets;
}

std::vector<double> SplitPrediction::bucket_mib() const {
  std::vector<double> sizes;
  for (auto it = schedule.buckets.rbegin(); it != schedule.buckets.rend(); ++it)
    sizes.push_back(static_cast<double>(it->bytes) / double(1 << 20));
  return sizes;
}

const SplitPrediction& TuneResult::split(std::string_view name) const {
  for (const SplitPrediction& prediction : splits)
    if (prediction.name == name) return prediction;
  throw Error("no prediction named '" + std::string(name) + "'", "tune-allreduce");
}

std::optional<double> TuneResult::prediction_error_percent() const {
  const std::optional<double>& measured = input.allreduce_wait_ns;
  if (!measured || *measured <= 0) return std::nullopt;
  return (current_wait_at_traced_ns - *measured) / *measured * 100.0;
}

TuneResult tune_allreduce(TuneInput input, const TuneOptions& options) {
  const std::int64_t ranks = options.ranks.value_or(input.world_size);
  if (ranks < 1)
    throw Error("--ranks must be at least 1, got " + std::to_string(ranks), "--ranks",
                "pass the number of data-parallel ranks to predict for, e.g. --ranks 8");
  CostModel cost_model = make_cost_model(input, options.link);
  const GradientProfile traced_profile = input.profile;  // wall times, no loss
  const ContentionFit contention = fit_backward_contention(input);
  TuneResult result;
  result.contention = contention;
  result.objective = options.objective;
  result.input = std::move(input);
  result.cost = std::move(cost_model);
  result.ranks = ranks;
  const GradientProfile& profile = result.input.profile;
  const AllreduceCost cost = result.cost.at(AllreduceAlgorithm::kRing, ranks);
  result.current_wait_at_traced_ns =
      simulate_schedule(profile, result.input.traced_buckets,
                        result.cost.at(AllreduceAlgorithm::kRing, result.input.world_size))
          .wait_ns;
  const double measured_wait =
      result.input.allreduce_wait_ns.value_or(result.current_wait_at_traced_ns);
  const double current_backward =
      simulate_schedule(profile, result.input.traced_buckets, cost).backward_ns;
  const auto add = [&](std::string name, std::string split,
                       const std::vector<profiler::GradientBucket>& buckets) {
    Schedule schedule = simulate_schedule(profile, buckets, cost);
    const double step = result.input.step_ns - measured_wait + schedule.wait_ns +
                        (schedule.backward_ns - current_backward);
    const double wait = schedule.wait_ns;
    result.splits.push_back({std::move(name), std::move(split), std::move(schedule), wait, step});
  };
  add("current", result.input.traced_split, result.input.traced_buckets);
  for (const auto& [name, split] :
       {std::pair{"none", "none"}, std::pair{"one", "one"}, std::pair{"ddp", kDdpDefaultSplit}})
    add(name, split, buckets_of(split, profile, split));
  if (profile.ready_ns.size() >= kSeedsParameters)
    add("seeds", kSeedsSplit, buckets_of(kSeedsSplit, profile, kSeedsSplit));
  for (const std::string& split : options.asked_splits)
    add("asked", split, buckets_of(split, profile, "--predict " + split));
  const GradientProfile& searched =
      options.objective == SplitObjective::kStep ? profile : traced_profile;
  const std::vector<profiler::GradientBucket> greedy = mg_wfbp_split(searched, cost);
  add("mg-wfbp", profiler::end_index_text(greedy), greedy);
  const std::vector<profiler::GradientBucket> optimum = optimal_split(searched, cost);
  add("optimum", profiler::end_index_text(optimum), optimum);
  note_extrapolation(result.splits.back(), result.cost, result.input.notes);
  if (options.simulate) result.projection = project_scaling(searched, result.cost);
  return result;
}

}  // namespace parity::analyzer
