#include "traced_run_checks.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>
#include <tuple>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/trainer/optim/lr_schedule.hpp"

namespace traced_run {
namespace {

using parity::profiler::CounterRow;
using parity::profiler::GradReadyRow;
using parity::profiler::RangeRow;
namespace sql = parity::profiler::sql;
namespace schema = parity::profiler::schema;

}  // namespace

RangeTree::RangeTree(TraceReader& trace) {
  schema::for_each<schema::kTable<RangeRow>, &RangeRow::id, &RangeRow::start_ns, &RangeRow::dur_ns,
                   &RangeRow::parent_id, &RangeRow::arg, &RangeRow::category, &RangeRow::name>(
      trace.db(), "", [&](const RangeRow& row) {
        ranges_[row.id] = Range{row.id,  row.start_ns, row.start_ns + row.dur_ns, row.parent_id,
                                row.arg, row.category, trace.string(row.name)};
      });
}

const Range* RangeTree::ancestor(const Range& range, Category category) const {
  for (auto parent = range.parent; parent;) {
    const auto it = ranges_.find(*parent);
    if (it == ranges_.end()) return nullptr;
    if (it->second.category == category) return &it->second;
    parent = it->second.parent;
  }
  return nullptr;
}

Steps RangeTree::steps() const {
  Steps steps;
  for (const auto& [id, r] : ranges_)
    if (r.category == Category::kStep) {
      CHECK(r.name == "step");
      REQUIRE(r.arg);
      CHECK(steps.emplace(*r.arg, &r).second);  // one range per step
    }
  return steps;
}

Phases RangeTree::phases() const {
  Phases phases;
  for (const auto& [id, r] : ranges_)
    if (r.category == Category::kPhase)
      if (const Range* step = ancestor(r, Category::kStep)) phases[{*step->arg, r.name}] = &r;
  return phases;
}

void check_meta(TraceReader& trace) {
  INFO("meta holds the config, the command line and a clean finish");
  CHECK(trace.meta_value("complete").value_or("") == "1");
  CHECK(trace.meta_value("dropped_records").value_or("") == "0");
  CHECK_THAT(trace.meta_value("command_line").value_or(""), Catch::Contains("--trace"));
  const std::string yaml = trace.meta_value("config").value_or("");
  CHECK_THAT(yaml, Catch::Contains("net_name: resnet18"));
  CHECK_THAT(yaml, Catch::Contains("synthetic_size: 24"));
  CHECK_THAT(yaml, Catch::Contains("batch_size: 8"));
}

void check_step_phases(const RangeTree& tree, const Steps& steps) {
  INFO("every step holds data_wait, forward, backward and optimizer, in that order");
  for (const auto& [number, step] : steps) {
    std::vector<const Range*> children;
    for (const auto& [id, r] : tree.ranges())
      if (r.category == Category::kPhase && r.parent == step->id) children.push_back(&r);
    std::sort(children.begin(), children.end(),
              [](const Range* x, const Range* y) { return x->start < y->start; });
    std::vector<std::string> names;
    for (const Range* r : children) {
      names.push_back(r->name);
      CHECK(r->start >= step->start);
      CHECK(r->end <= step->end);
    }
    INFO("step " << number);
    CHECK(names == std::vector<std::string>{"data_wait", "forward", "backward", "optimizer"});
  }
}

void check_parameters(const std::vector<ParameterRow>& parameters) {
  INFO("the parameter table lists ResNet-18's parameters with torchvision's names");
  REQUIRE(parameters.size() == 62);
  CHECK(parameters.front().name == "conv1.weight");
  CHECK(parameters.front().shape == "64,3,3,3");
  CHECK(parameters.back().name == "fc.bias");
  for (std::size_t i = 0; i < parameters.size(); ++i) CHECK(parameters[i].index == std::int64_t(i));
}

void check_layer_ranges(const RangeTree& tree, const std::vector<ParameterRow>& parameters,
                        std::int64_t step_count) {
  INFO("every module with a weight has one forward and one backward layer range per step");
  // (module, phase, step) -> layer ranges
  std::map<std::tuple<std::string, std::string, std::int64_t>, int> counts;
  for (const auto& [id, r] : tree.ranges()) {
    if (r.category != Category::kLayer) continue;
    const Range* phase = tree.ancestor(r, Category::kPhase);
    const Range* step = tree.ancestor(r, Category::kStep);
    INFO("layer range " << r.name);
    REQUIRE(phase);
    REQUIRE(step);
    ++counts[{r.name, phase->name, *step->arg}];
  }
  std::set<std::string> modules{"layer1", "layer1.0", "layer4", "layer4.1"};  // stages, blocks
  for (const auto& p : parameters)
    if (p.name.ends_with(".weight")) modules.insert(p.name.substr(0, p.name.size() - 7));
  CHECK(modules.size() == 20 + 20 + 1 + 4);  // convs, batch norms, fc, stages and blocks
  for (const std::string& module : modules)
    for (std::int64_t s = 0; s < step_count; ++s) {
      INFO(module << " step " << s);
      CHECK(counts[{module, "forward", s}] == 1);
      CHECK(counts[{module, "backward", s}] == 1);
    }
}

namespace {

// Each op range's parent is a layer range and its name fits its phase;
// returns (op range name, step) -> count. The backend's reorders and the
// loader's batches are ops of no module and are passed over.
std::map<std::pair<std::string, std::int64_t>, int> module_ops_per_step(
    const RangeTree& tree, std::map<std::int64_t, int>& ops_in_layer) {
  const std::set<std::string> op_kinds{"conv2d",   "batch_norm", "batch_norm_relu", "relu",
                                       "max_pool", "avg_pool",   "linear",          "add_relu"};
  std::map<std::pair<std::string, std::int64_t>, int> per_step;
  for (const auto& [id, r] : tree.ranges()) {
    if (r.category == Category::kLayer) {
      INFO("layer range " << r.name);
      // A residual block's add_relu must not enclose the block's convolutions.
      CHECK(tree.ancestor(r, Category::kOp) == nullptr);
    }
    if (r.category != Category::kOp || r.name == "reorder" || r.name == "load_batch") continue;
    INFO("op range " << r.name);
    REQUIRE(r.parent);
    const Range& layer = tree.ranges().at(*r.parent);
    CHECK(layer.category == Category::kLayer);
    ++ops_in_layer[layer.id];
    const Range* phase = tree.ancestor(r, Category::kPhase);
    const Range* step = tree.ancestor(r, Category::kStep);
    REQUIRE(phase);
    REQUIRE(step);
    const bool backward = r.name.ends_with("_backward");
    CHECK(backward == (phase->name == "backward"));
    CHECK(op_kinds.count(backward ? r.name.substr(0, r.name.size() - 9) : r.name) == 1);
    ++per_step[{r.name, *step->arg}];
  }
  return per_step;
}

}  // namespace

void check_op_ranges(const RangeTree& tree, const std::vector<ParameterRow>& parameters,
                     std::int64_t step_count) {
  INFO("an op range per module op, inside its layer range, around no other module");
  std::map<std::int64_t, int> ops_in_layer;  // layer range id -> op ranges
  auto per_step = module_ops_per_step(tree, ops_in_layer);
  for (const auto& [id, r] : tree.ranges())
    if (r.category == Category::kLayer) {
      // Stages (layer1 ... layer4) only hold blocks; blocks own their add_relu.
      const bool stage = r.name.starts_with("layer") && r.name.find('.') == std::string::npos;
      INFO("layer range " << r.name);
      CHECK(ops_in_layer[id] == (stage ? 0 : 1));
    }
  std::int64_t convs = 0, batch_norms = 0;
  for (const auto& p : parameters) {
    convs += std::count(p.shape.begin(), p.shape.end(), ',') == 3;  // "64,3,3,3"
    batch_norms += p.name.ends_with(".weight") && p.shape.find(',') == std::string::npos;
  }
  CHECK(convs == 20);
  for (std::int64_t s = 0; s < step_count; ++s) {
    INFO("step " << s);
    CHECK(per_step[{"conv2d", s}] == convs);
    CHECK(per_step[{"conv2d_backward", s}] == convs);
    CHECK(per_step[{"batch_norm", s}] + per_step[{"batch_norm_relu", s}] == batch_norms);
    CHECK(per_step[{"batch_norm_backward", s}] + per_step[{"batch_norm_relu_backward", s}] ==
          batch_norms);
    CHECK(per_step[{"add_relu", s}] == 8);  // ResNet-18's blocks
    CHECK(per_step[{"add_relu_backward", s}] == 8);
    CHECK(per_step[{"linear", s}] == 1);
    CHECK(per_step[{"linear_backward", s}] == 1);
  }
}

void check_reorders(TraceReader& trace) {
  INFO("the backend's layout conversions (loading and saving weights) are reorder op ranges");
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM range r JOIN string s ON s.id = r.name_id WHERE "
                       "s.text = 'reorder' AND r.category = 4") > 0);
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM range r JOIN string s ON s.id = r.name_id WHERE "
                       "s.text = 'reorder' AND r.category != 4") == 0);
}

void check_gradient_ready(TraceReader& trace, const Phases& phases,
                          const std::vector<ParameterRow>& parameters, std::int64_t step_count) {
  INFO("exactly one gradient_ready per parameter per step, inside that step's backward");
  std::map<std::pair<std::int64_t, std::int64_t>, int> events;
  schema::for_each<schema::kTable<GradReadyRow>, &GradReadyRow::step, &GradReadyRow::param_index,
                   &GradReadyRow::ts_ns, &GradReadyRow::bytes>(
      trace.db(), "", [&](const GradReadyRow& row) {
        const std::int64_t step = row.step, index = row.param_index;
        ++events[{step, index}];
        const auto backward = phases.find({step, "backward"});
        INFO("step " << step << " parameter " << index);
        REQUIRE(backward != phases.end());
        CHECK(row.ts_ns >= backward->second->start);
        CHECK(row.ts_ns <= backward->second->end);
        REQUIRE(index < std::int64_t(parameters.size()));
        CHECK(row.bytes == parameters[std::size_t(index)].bytes);
      });
  CHECK(events.size() == std::size_t(step_count) * parameters.size());
  for (std::int64_t s = 0; s < step_count; ++s)
    for (std::size_t p = 0; p < parameters.size(); ++p) {
      INFO("step " << s << " parameter " << parameters[p].name);
      CHECK(events[{s, std::int64_t(p)}] == 1);
    }
}

void check_loss_and_lr(TraceReader& trace, const Steps& steps,
                       const std::vector<std::string>& printed_losses) {
  INFO("loss and lr counters: one per step, the printed loss and the schedule's rate");
  const auto step_count = std::int64_t(steps.size());
  std::map<std::string, std::vector<std::pair<std::int64_t, double>>> series;
  schema::for_each<schema::kTable<CounterRow>, &CounterRow::track, &CounterRow::ts_ns,
                   &CounterRow::value>(
      trace.db(), "WHERE track_id IN (SELECT id FROM track WHERE kind = 5) ORDER BY ts_ns",
      [&](const CounterRow& row) {
        const auto* track = trace.track(row.track);
        REQUIRE(track);
        series[trace.string(track->name)].emplace_back(row.ts_ns, row.value);
      });
  REQUIRE(series["loss"].size() == std::size_t(step_count));
  REQUIRE(series["lr"].size() == std::size_t(step_count));
  REQUIRE(printed_losses.size() == std::size_t(step_count));
  const auto rates = parity::trainer::generate_learning_rates(
      {parity::trainer::LrDecayMode::kCosine, 0.0, 0.02, 0.0, 0.0, 1, step_count});
  for (std::int64_t s = 0; s < step_count; ++s) {
    const auto& [loss_ts, loss] = series["loss"][std::size_t(s)];
    const auto& [lr_ts, lr] = series["lr"][std::size_t(s)];
    const Range& step = *steps.at(s);
    INFO("step " << s);
    CHECK(loss_ts >= step.start);
    CHECK(loss_ts <= step.end);
    CHECK(lr_ts >= step.start);
    CHECK(lr_ts <= step.end);
    char text[64];
    std::snprintf(text, sizeof text, "%.9g", double(float(loss)));
    CHECK_THAT(printed_losses[std::size_t(s)], Catch::EndsWith(std::string(", loss is ") + text));
    CHECK(lr == rates[std::size_t(s)]);
  }
}

void check_queue_samples(TraceReader& trace, std::int64_t step_count) {
  INFO("the training queue has producer and consumer samples");
  const auto count = [&](int role) {
    return sql::query_int(trace.db(),
                          "SELECT count(*) FROM queue_sample q JOIN track t ON t.id = q.track_id "
                          "JOIN string s ON s.id = t.name_id WHERE t.kind = 6 AND "
                          "s.text = 'train_queue' AND q.role = " +
                              std::to_string(role));
  };
  CHECK(count(1) >= step_count);  // a put per batch
  CHECK(count(2) >= step_count);  // a get per batch
}

}  // namespace traced_run
