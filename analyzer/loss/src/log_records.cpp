#include "parity/analyzer/loss/log_records.hpp"

#include <algorithm>
#include <map>

#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

// Steps restart each epoch when some epoch's first step is not past the
// previous epoch's last one.
bool steps_restart_each_epoch(const std::vector<LogRecord>& records) {
  for (std::size_t i = 1; i < records.size(); ++i)
    if (*records[i].epoch != *records[i - 1].epoch && *records[i].step <= *records[i - 1].step)
      return true;
  return false;
}

// The largest step number of the epochs before the last one logged.
std::int64_t inferred_steps_per_epoch(const std::vector<LogRecord>& records) {
  const std::int64_t last_epoch = *records.back().epoch;
  std::int64_t steps = 0;
  for (const LogRecord& record : records)
    if (*record.epoch != last_epoch) steps = std::max(steps, *record.step);
  return steps;
}

std::string global_steps(const std::vector<LogRecord>& records,
                         std::optional<std::int64_t> steps_per_epoch,
                         std::vector<std::int64_t>& steps) {
  const bool has_epoch = records.front().epoch.has_value();
  const bool has_step = records.front().step.has_value();
  if (!has_step) {
    for (std::size_t i = 0; i < records.size(); ++i) steps.push_back(std::int64_t(i) + 1);
    return "the lines give no step: the n-th loss line is step n";
  }
  if (!has_epoch || !steps_restart_each_epoch(records)) {
    for (const LogRecord& record : records) steps.push_back(*record.step);
    if (!has_epoch) return "the lines' step numbers are the global steps";
    return *records.front().epoch == *records.back().epoch
               ? "one epoch: its step numbers are the global steps"
               : "the step numbers rise across epochs: they are global steps";
  }
  const std::int64_t per_epoch = steps_per_epoch.value_or(inferred_steps_per_epoch(records));
  for (const LogRecord& record : records)
    steps.push_back((*record.epoch - 1) * per_epoch + *record.step);
  return std::to_string(per_epoch) + " steps per epoch (" +
         (steps_per_epoch ? "--steps-per-epoch"
                          : "the largest step of the epochs before the last") +
         "): global step = (epoch - 1) * " + std::to_string(per_epoch) + " + step";
}

}  // namespace

LossCurve number_steps(const std::vector<LogRecord>& records, const std::string& source,
                       const std::string& kind, std::optional<std::int64_t> steps_per_epoch) {
  if (records.empty())
    throw Error("no loss line found", source,
                "give a training log with lines like 'epoch: 1 step: 5, loss is 2.30', or describe "
                "its loss lines with --pattern-a/--pattern-b 'Iter {step}: loss={loss}'");
  LossCurve curve{source, kind, {}, {}};
  std::vector<std::int64_t> steps;
  curve.steps_note = global_steps(records, steps_per_epoch, steps);
  std::map<std::int64_t, const LogRecord*> by_step;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto [it, fresh] = by_step.emplace(steps[i], &records[i]);
    if (!fresh)
      throw Error("step " + std::to_string(steps[i]) + " has two loss lines",
                  source + ": lines " + std::to_string(it->second->line) + " and " +
                      std::to_string(records[i].line),
                  "a log of one run logs each step once: split a log of several runs, or give "
                  "--steps-per-epoch when the epochs' step counts cannot be inferred (" +
                      curve.steps_note + ")");
  }
  for (const auto& [step, record] : by_step)
    curve.points.push_back({step, record->loss, record->line});
  return curve;
}

}  // namespace parity::analyzer
