#include <optional>

#include "parity/analyzer/report_format.hpp"
#include "parity/analyzer/tune/tune_report.hpp"

namespace parity::analyzer {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) {
  return value ? json_number(*value) : json(nullptr);
}

json split_json(const SplitPrediction& prediction) {
  const std::vector<profiler::GradientBucket> buckets = prediction.buckets();
  return {{"name", prediction.name},
          {"split", prediction.split},
          {"buckets", buckets.size()},
          {"exposed_ns", json_number(prediction.schedule.exposed_ns)},
          {"wait_ns", json_number(prediction.wait_ns)},
          {"backward_ns", json_number(prediction.schedule.backward_ns)},
          {"step_ns", json_number(prediction.step_ns)},
          {"index", profiler::end_index_text(buckets)},
          {"split_points", profiler::split_point_text(buckets)},
          {"bucket_mib", prediction.bucket_mib()},
          {"set", "allreduce_split=" + profiler::end_index_text(buckets)}};
}

json table_json(const CostTable& table) {
  json rows = json::array();
  for (const CostTable::Entry& entry : table.entries())
    rows.push_back(
        {{"bytes", entry.bytes}, {"ns", json_number(entry.ns)}, {"samples", entry.samples}});
  return rows;
}

json line_json(const CostLine& line) {
  return {{"intercept_ns", json_number(line.intercept_ns)},
          {"slope_ns_per_byte", json_number(line.slope_ns_per_byte)}};
}

json link_json(const CostModel& cost) {
  json link = {{"name", link_name(cost.link())},
               {"algorithm", algorithm_name(AllreduceAlgorithm::kRing)},
               {"alpha_ns", json_number(cost.params().alpha_ns)},
               {"beta_ns_per_byte", json_number(cost.params().beta_ns_per_byte)}};
  if (!cost.table()) {
    link["description"] = preset_description(cost.link());
    return link;
  }
  link["traced_ranks"] = cost.traced_ranks();
  link["cost_table"] = table_json(*cost.table());
  link["cost_line"] = line_json(cost.table()->line());
  if (cost.busy_table()) {
    link["busy_cost_table"] = table_json(*cost.busy_table());
    link["busy_cost_line"] = line_json(cost.busy_table()->line());
  }
  return link;
}

json rate_json(const FittedRate& rate) {
  return {{"ns_per_byte", json_number(rate.ns_per_byte)},
          {"standard_error", json_number(rate.standard_error)}};
}

json contention_json(const ContentionFit& fit) {
  const ContentionLoss& loss = fit.loss;
  json knee_fit = nullptr;
  if (fit.knee)
    knee_fit = {{"bytes", json_number(fit.knee->bytes)},
                {"smaller_size", json_number(fit.knee->smaller_size)},
                {"larger_size", json_number(fit.knee->larger_size)},
                {"below", rate_json(fit.knee->below)},
                {"above", rate_json(fit.knee->above)}};
  return {
      {"backward_ns_lost_per_byte", json_number(loss.ns_per_byte)},
      {"knee_bytes", loss.has_knee() ? json_number(loss.knee_bytes) : json(nullptr)},
      {"above_knee_ns_per_byte",
       loss.has_knee() ? json_number(loss.above_knee_ns_per_byte) : json(nullptr)},
      {"fitted_ns_per_byte", fit.uniform ? json_number(fit.uniform->ns_per_byte) : json(nullptr)},
      {"standard_error", fit.uniform ? json_number(fit.uniform->standard_error) : json(nullptr)},
      {"knee_fit", knee_fit},
      {"used", fit.used()},
      {"runs", fit.runs},
      {"samples", fit.samples}};
}

}  // namespace

json tune_json(const TuneResult& result) {
  const TuneInput& input = result.input;
  json gradients = json::array();
  for (std::size_t i = 0; i < input.param_names.size(); ++i)
    gradients.push_back({{"index", i},
                         {"name", input.param_names[i]},
                         {"bytes", input.profile.bytes[i]},
                         {"ready_ns", json_number(input.profile.ready_ns[i])}});
  json splits = json::array();
  for (const SplitPrediction& prediction : result.splits) splits.push_back(split_json(prediction));
  json projection = json::array();
  for (const ScalePoint& point : result.projection)
    projection.push_back(
        {{"ranks", point.ranks},
         {"algorithm", algorithm_name(point.algorithm)},
         {"ddp_added_ns", json_number(point.ddp_added_ns)},
         {"optimum_added_ns", json_number(point.optimum_added_ns)},
         {"gain_ns", json_number(point.gain_ns())},
         {"gain_percent", point.ddp_added_ns > 0
                              ? json_number(point.gain_ns() / point.ddp_added_ns * 100.0)
                              : json(nullptr)},
         {"optimum_buckets", point.optimum.size()},
         {"optimum_split", profiler::end_index_text(point.optimum)}});
  return {{"traces", input.paths},
          {"world_size", input.world_size},
          {"ranks", result.ranks},
          {"parameters", input.param_names.size()},
          {"gradient_bytes", input.profile.total_bytes()},
          {"steps", input.steps},
          {"warm_up_step", input.warm_up_step ? json(*input.warm_up_step) : json(nullptr)},
          {"link", link_json(result.cost)},
          {"objective", result.objective == SplitObjective::kStep ? "step" : "exposed"},
          {"contention", contention_json(result.contention)},
          {"measured",
           {{"split", input.traced_split},
            {"step_ns", json_number(input.step_ns)},
            {"allreduce_wait_ns", optional_number(input.allreduce_wait_ns)},
            {"backward_tail_ns", json_number(input.backward_tail_ns)},
            {"predicted_wait_ns", json_number(result.current_wait_at_traced_ns)},
            {"error_percent", optional_number(result.prediction_error_percent())}}},
          {"splits", splits},
          {"optimum", split_json(result.split("optimum"))},
          {"projection", projection},
          {"gradients", gradients},
          {"notes", input.notes}};
}

}  // namespace parity::analyzer
