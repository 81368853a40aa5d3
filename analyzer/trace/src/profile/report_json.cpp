// The versioned JSON rendering of a profile report (docs/report-json.md).
#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/core/version.hpp"

namespace parity::analyzer {
namespace {

using nlohmann::json;

json stat_json(const OpStat& op) {
  json j = to_json(op.time);
  j["name"] = op.name;
  if (!op.phase.empty()) j["phase"] = op.phase;
  j["self_ns"] = op.self_ns;
  j["step_share"] = op.step_share;
  return j;
}

json steps_json(const StepAnalysis& steps) {
  json parts = json::object(), shares = json::object();
  for (const StepPart part : kAllStepParts) {
    parts[std::string(step_part_name(part))] = to_json(steps.part(part));
    shares[std::string(step_part_name(part))] = steps.share(part);
  }
  json per_step = json::array();
  for (const StepBreakdown& step : steps.steps) {
    json row{{"step", step.step},
             {"start_ns", step.start_ns},
             {"dur_ns", step.dur_ns},
             {"gap_before_ns", step.gap_before_ns}};
    for (const StepPart part : kAllStepParts)
      row[std::string(step_part_name(part))] = step.part(part);
    per_step.push_back(std::move(row));
  }
  return {{"count", steps.steps.size()},
          {"warmup_steps", steps.warmup_steps},
          {"total_step_ns", steps.total_step_ns},
          {"step_time", to_json(steps.step_time)},
          {"gap", to_json(steps.gap)},
          {"parts", parts},
          {"shares", shares},
          {"steps", per_step}};
}

json ops_json(const OpAnalysis& ops) {
  json op_list = json::array(), layers = json::array(), kernels = json::array();
  for (const OpStat& op : ops.ops) op_list.push_back(stat_json(op));
  for (const OpStat& layer : ops.layers) layers.push_back(stat_json(layer));
  for (const KernelStat& kernel : ops.kernels) {
    json k = to_json(kernel.time);
    k["name"] = kernel.name;
    k["device_share"] = kernel.device_share;
    k["launch"] = to_json(kernel.launch);
    k["queue"] = to_json(kernel.queue);
    kernels.push_back(std::move(k));
  }
  return {{"ops", op_list},
          {"layers", layers},
          {"kernels", kernels},
          {"kernel_count", ops.kernel_count},
          {"small_kernel_count", ops.small_kernel_count},
          {"kernel_time_ns", ops.kernel_time_ns},
          {"conversion_ns", ops.conversion_ns},
          {"conversion_share", ops.conversion_share}};
}

json data_json(const DataAnalysis& data) {
  json queues = json::array();
  for (const QueueStats& q : data.queues) {
    json series = json::array();
    for (const QueueDepthPoint& p : q.depth_series) series.push_back({p.ts_ns, p.depth});
    queues.push_back({{"name", q.name},
                      {"capacity", q.capacity},
                      {"gets", q.gets},
                      {"empty_gets", q.empty_gets},
                      {"puts", q.puts},
                      {"empty_ratio", q.empty_ratio},
                      {"consumer_wait_share", q.consumer_wait_share},
                      {"producer_wait_share", q.producer_wait_share},
                      {"producer_rate", q.producer_rate},
                      {"consumer_rate", q.consumer_rate},
                      {"mean_depth", q.mean_depth},
                      {"depth_series", series}});
  }
  return {{"input_bound_share", data.input_bound_share},
          {"input_bound", input_bound_name(data.input_bound)},
          {"share_source", data.share_source},
          {"queues", queues}};
}

json comm_json(const CommAnalysis& comm) {
  json ops = json::array(), buckets = json::array();
  for (const CollectiveStats& c : comm.ops) {
    json j = to_json(c.time);
    j["op"] = c.op;
    j["bytes"] = c.bytes;
    j["algorithm_gbps"] = c.algorithm_gbps;
    j["bus_gbps"] = c.bus_gbps;
    j["overlapped_ns"] = c.overlapped_ns;
    j["exposed_ns"] = c.exposed_ns;
    ops.push_back(std::move(j));
  }
  for (const BucketStats& b : comm.buckets) {
    json j = to_json(b.time);
    j["bucket"] = b.bucket;
    j["bytes"] = b.bytes;
    j["exposed_ns"] = b.exposed_ns;
    buckets.push_back(std::move(j));
  }
  return {{"total_ns", comm.total_ns},
          {"overlapped_ns", comm.overlapped_ns},
          {"exposed_ns", comm.exposed_ns},
          {"exposed_share", comm.exposed_share},
          {"compute_source", comm.compute_source},
          {"collectives", ops},
          {"buckets", buckets}};
}

json idle_json(const std::vector<IdleTrack>& tracks) {
  json list = json::array();
  for (const IdleTrack& track : tracks) {
    json by_cause = json::object(), longest = json::array();
    for (std::size_t c = 0; c < kIdleCauses; ++c)
      by_cause[std::string(idle_cause_name(static_cast<IdleCause>(c)))] = track.idle_by_cause[c];
    for (const IdleGap& gap : track.longest)
      longest.push_back({{"start_ns", gap.start_ns},
                         {"dur_ns", gap.dur_ns},
                         {"step", gap.step == kNoStep ? json(nullptr) : json(gap.step)},
                         {"cause", idle_cause_name(gap.cause)}});
    list.push_back({{"track", track.track},
                    {"window_ns", track.window_ns},
                    {"busy_ns", track.busy_ns},
                    {"idle_ns", track.idle_ns},
                    {"idle_by_cause", by_cause},
                    {"longest_gaps", longest}});
  }
  return list;
}

json counters_json(const CounterAnalysis& c) {
  const auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"loss_samples", c.loss_samples},
          {"nonfinite_losses", c.nonfinite_losses},
          {"loss_scale_drops", c.loss_scale_drops},
          {"overflow_skips", c.overflow_skips},
          {"nonfinite_values", c.nonfinite_values},
          {"memory_peak_bytes", optional(c.memory_peak_bytes)},
          {"memory_capacity_bytes", optional(c.memory_capacity_bytes)}};
}

json rank_json(const RankProfile& rank) {
  return {{"rank", rank.rank},
          {"world_size", rank.world_size},
          {"path", rank.path},
          {"meta", rank.meta},
          {"complete", rank.complete},
          {"dropped_records", rank.dropped_records},
          {"events", rank.events},
          {"steps", steps_json(rank.steps)},
          {"operators", ops_json(rank.ops)},
          {"data", data_json(rank.data)},
          {"communication", comm_json(rank.comm)},
          {"device_idle", idle_json(rank.idle)},
          {"counters", counters_json(rank.counters)}};
}

json comparison_json(const RankComparison& comparison) {
  json rows = json::array();
  for (const RankRow& row : comparison.rows) {
    json parts = json::object();
    for (const StepPart part : kAllStepParts)
      parts[std::string(step_part_name(part))] = row.part_mean_ns[static_cast<std::size_t>(part)];
    rows.push_back({{"rank", row.rank},
                    {"path", row.path},
                    {"steps", row.steps},
                    {"step_time", to_json(row.step_time)},
                    {"part_mean_ns", parts},
                    {"work_ns", row.work_ns},
                    {"vs_median", row.vs_median},
                    {"straggler", row.straggler}});
  }
  return {{"median_step_ns", comparison.median_step_ns},
          {"median_work_ns", comparison.median_work_ns},
          {"ranks", rows}};
}

}  // namespace

nlohmann::json to_json(const ProfileReport& report) {
  json findings = json::array();
  json counts{{"error", 0}, {"warning", 0}, {"info", 0}};
  for (const Finding& f : report.findings) {
    findings.push_back(to_json(f));
    counts[std::string(severity_name(f.severity))] =
        counts[std::string(severity_name(f.severity))].get<int>() + 1;
  }
  json ranks = json::array();
  for (const RankProfile& rank : report.ranks) ranks.push_back(rank_json(rank));
  return {{"report_version", ProfileReport::kVersion},
          {"tool_version", kVersion},
          {"verdict", report.failed() ? "fail" : "pass"},
          {"fail_on", severity_name(report.fail_on)},
          {"finding_counts", counts},
          {"findings", findings},
          {"baseline", report.baseline ? to_json(*report.baseline) : json(nullptr)},
          {"rank_comparison", comparison_json(report.rank_comparison)},
          {"ranks", ranks},
          {"thresholds", to_json(report.thresholds)}};
}

}  // namespace parity::analyzer
