#include "parity/analyzer/loss/loss_report.hpp"

#include <algorithm>

#include "loss_chart.hpp"
#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

// Parted steps listed one by one; the rest are counted.
constexpr std::size_t kListedSteps = 20;
constexpr const char* kChartHeading = "curves";

std::string allowed_text(const LossStep& step) {
  if (step.banded) return "[" + format_precise(step.low) + ", " + format_precise(step.high) + "]";
  return "±" + format_number(std::max(step.a - step.low, step.high - step.a));
}

std::string step_values(const LossStep& step) {
  return "a=" + format_precise(step.a) + ", b=" + format_precise(step.b) +
         ", |Δ|=" + format_number(step.gap()) + ", allowed=" + allowed_text(step);
}

std::string steps_text(const std::vector<std::int64_t>& steps) {
  std::string text;
  for (std::size_t i = 0; i < std::min(steps.size(), kListedSteps); ++i)
    text += (i ? ", " : "") + std::to_string(steps[i]);
  if (steps.size() > kListedSteps)
    text += " and " + std::to_string(steps.size() - kListedSteps) + " more";
  return text;
}

std::vector<std::vector<std::string>> input_fields(const LossComparison& c) {
  std::vector<std::vector<std::string>> rows{
      {"A (reference)", c.a.source + " (" + c.a.kind + ", " + std::to_string(c.a.points.size()) +
                            " steps; " + c.a.steps_note + ")"},
      {"B", c.b.source + " (" + c.b.kind + ", " + std::to_string(c.b.points.size()) + " steps; " +
                c.b.steps_note + ")"}};
  for (const LossCurve& run : c.band)
    rows.push_back({"band run", run.source + " (" + std::to_string(run.points.size()) + " steps)"});
  rows.push_back({"tolerance", "atol " + format_number(c.tolerance.atol) + ", rtol " +
                                   format_number(c.tolerance.rtol) +
                                   (c.band.empty() ? " of A" : " beyond the band of A's runs")});
  return rows;
}

std::vector<std::vector<std::string>> count_fields(const LossComparison& c) {
  std::vector<std::vector<std::string>> rows{{"common steps", std::to_string(c.steps.size())},
                                             {"parted steps", std::to_string(c.parted)}};
  if (c.largest_gap) {
    const LossStep& step = c.steps[*c.largest_gap];
    rows.push_back({"largest gap", "step " + std::to_string(step.step) + ": " + step_values(step)});
  }
  if (!c.only_a.empty()) rows.push_back({"only in A", steps_text(c.only_a)});
  if (!c.only_b.empty()) rows.push_back({"only in B", steps_text(c.only_b)});
  return rows;
}

Table parted_table(const LossComparison& c) {
  Table table{{"step", "A", "B", "|Δ|", "allowed"}, {}, {}};
  for (const LossStep& step : c.steps) {
    if (!step.parted) continue;
    if (table.rows.size() == kListedSteps) break;
    table.rows.push_back({std::to_string(step.step), format_precise(step.a), format_precise(step.b),
                          format_number(step.gap()), allowed_text(step)});
  }
  return table;
}

Document loss_document(const LossComparison& c) {
  Document document;
  document.heading("Loss comparison", 1);
  document.fields(input_fields(c));
  document.verdict(loss_verdict(c), c.matched());
  document.heading("First loss");
  document.paragraph(first_loss_reading(c));
  document.heading("Counts");
  document.fields(count_fields(c));
  if (c.parted) {
    document.heading("Parted steps");
    document.table(parted_table(c));
    if (c.parted > kListedSteps)
      document.paragraph("The first " + std::to_string(kListedSteps) + " of " +
                         std::to_string(c.parted) + " parted steps (json lists every step).");
  }
  document.heading("Curves", 2, kChartHeading);
  document.paragraph("The HTML report draws both curves and the band B had to stay in.");
  return document;
}

nlohmann::ordered_json curve_json(const LossCurve& curve) {
  return {{"source", curve.source},
          {"kind", curve.kind},
          {"steps_note", curve.steps_note},
          {"steps", curve.points.size()}};
}

nlohmann::ordered_json step_json(const LossStep& step) {
  return {{"step", step.step},
          {"a", json_number(step.a)},
          {"b", json_number(step.b)},
          {"gap", json_number(step.gap())},
          {"low", json_number(step.low)},
          {"high", json_number(step.high)},
          {"parted", step.parted}};
}

nlohmann::ordered_json loss_json(const LossComparison& c) {
  nlohmann::ordered_json data;
  data["verdict"] = c.matched() ? "match" : "parted";
  data["summary"] = loss_verdict(c);
  data["a"] = curve_json(c.a);
  data["b"] = curve_json(c.b);
  data["band"] = nlohmann::ordered_json::array();
  for (const LossCurve& run : c.band) data["band"].push_back(curve_json(run));
  data["tolerance"] = {{"atol", c.tolerance.atol}, {"rtol", c.tolerance.rtol}};
  data["first_step"] = c.steps.empty() ? nlohmann::ordered_json() : step_json(c.steps.front());
  data["first_loss_differs"] = c.first_loss_differs();
  data["first_parted"] =
      c.first_parted ? step_json(c.steps[*c.first_parted]) : nlohmann::ordered_json();
  data["largest_gap"] =
      c.largest_gap ? step_json(c.steps[*c.largest_gap]) : nlohmann::ordered_json();
  data["counts"] = {{"common", c.steps.size()},
                    {"parted", c.parted},
                    {"only_a", c.only_a.size()},
                    {"only_b", c.only_b.size()}};
  data["only_a"] = c.only_a;
  data["only_b"] = c.only_b;
  data["steps"] = nlohmann::ordered_json::array();
  for (const LossStep& step : c.steps) data["steps"].push_back(step_json(step));
  return data;
}

}  // namespace

std::string loss_verdict(const LossComparison& c) {
  if (c.steps.empty()) return "NO COMMON STEP: the curves share no step, nothing was compared";
  if (!c.first_parted)
    return "MATCH: all " + std::to_string(c.steps.size()) + " common steps within tolerance";
  const LossStep& step = c.steps[*c.first_parted];
  return "PARTED at step " + std::to_string(step.step) + ": " + step_values(step);
}

std::string first_loss_reading(const LossComparison& c) {
  if (c.steps.empty()) return "No step to check.";
  const LossStep& first = c.steps.front();
  std::string where = "Step " + std::to_string(first.step) + ": " + step_values(first) + ". ";
  if (first.step != c.a.points.front().step || first.step != c.b.points.front().step)
    where += "(A starts at step " + std::to_string(c.a.points.front().step) + ", B at step " +
             std::to_string(c.b.points.front().step) + ": this is the first step both hold.) ";
  if (c.first_loss_differs())
    return where +
           "The first loss differs: the forward pass, the data or the initialisation differ, "
           "not the optimiser. Fix the inputs (no shuffle, same weights), dump the forward "
           "tensors of both runs and find the first that differs with `parity compare`.";
  if (c.first_parted)
    return where +
           "The first loss matches and later losses drift: the forward pass agrees, so look at "
           "the backward pass and the update (gradients, optimizer, learning rate schedule, loss "
           "scaling). Compare checkpoints saved after the first steps with `parity diff`.";
  return where + "The first loss matches.";
}

std::vector<std::string> loss_report_formats() {
  return format_names({ReportPart::kDocument, ReportPart::kData});
}

Report loss_report(const LossComparison& comparison) {
  Report report;
  report.document = loss_document(comparison);
  if (std::string chart = loss_chart(comparison); !chart.empty())
    report.html.after_heading[kChartHeading] = std::move(chart);
  report.data = loss_json(comparison);
  return report;
}

}  // namespace parity::analyzer
