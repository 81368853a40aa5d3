#include "parity/analyzer/grad_probe/grad_probe_report.hpp"

#include <algorithm>
#include <numeric>

#include "parity/analyzer/report/report_formats.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {
namespace {

// Steps listed one by one in text, md and html; json lists every one.
constexpr std::size_t kListedSteps = 30;
// Parameters listed at the first bad step, least similar first.
constexpr std::size_t kListedParameters = 10;

std::string similarity_text(double value) { return format_precise(value); }

std::string reason(const GradProbeComparison& c, const ProbeStep& step) {
  switch (step.verdict) {
    case ProbeStep::Verdict::kBelow:
      return "below " + format_number(c.thresholds.min_similarity);
    case ProbeStep::Verdict::kFell:
      return "fell " + format_number(*step.fall) + " (more than " +
             format_number(c.thresholds.max_fall) + ")";
    case ProbeStep::Verdict::kFurtherFromReference:
      return "A's signs disagree with R's " + format_number(step.reference->ratio) +
             "x as often as B's (limit " + format_number(c.thresholds.reference_ratio) + "x)";
    case ProbeStep::Verdict::kGood:
      break;
  }
  return "";
}

const char* verdict_name(ProbeStep::Verdict verdict) {
  switch (verdict) {
    case ProbeStep::Verdict::kBelow:
      return "below";
    case ProbeStep::Verdict::kFell:
      return "fell";
    case ProbeStep::Verdict::kFurtherFromReference:
      return "further_from_reference";
    case ProbeStep::Verdict::kGood:
      break;
  }
  return "good";
}

// The step's parameters, least similar first (ties in A's order).
std::vector<std::size_t> least_similar(const GradProbeComparison& c, const ProbeStep& step) {
  std::vector<std::size_t> order(c.parameters.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return c.similarity(step, x) < c.similarity(step, y);
  });
  return order;
}

std::string steps_text(const std::vector<std::int64_t>& steps) {
  std::string text;
  for (std::size_t i = 0; i < std::min<std::size_t>(steps.size(), 20); ++i)
    text += (i ? ", " : "") + std::to_string(steps[i]);
  if (steps.size() > 20) text += " and " + std::to_string(steps.size() - 20) + " more";
  return text;
}

std::vector<std::vector<std::string>> input_fields(const GradProbeComparison& c) {
  const auto side = [](const ProbeSide& s) {
    return s.source + " (" + s.producer + ", " + std::to_string(s.records) + " steps)";
  };
  std::vector<std::vector<std::string>> fields{
      {"A", side(c.a)},
      {"B", side(c.b)},
      {"parameters", std::to_string(c.parameters.size()) + " (" + std::to_string(c.elements) +
                         " gradient elements a step)"}};
  if (c.reference) {
    fields.push_back({"R", side(*c.reference) + ", the float64 reference"});
    fields.push_back({"bad step", "A's signs disagree with R's more than " +
                                      format_number(c.thresholds.reference_ratio) +
                                      "x as often as B's (each at least " +
                                      format_number(kDisagreementFloor) +
                                      "); steps R lacks: the rules below"});
  }
  fields.push_back({c.reference ? "without R" : "bad step",
                    "sign similarity below " + format_number(c.thresholds.min_similarity) +
                        ", or more than " + format_number(c.thresholds.max_fall) +
                        " below the step before"});
  return fields;
}

Table parameter_table(const GradProbeComparison& c, const ProbeStep& step) {
  Table table{{"parameter", "elements", "signs differing", "similarity"}, {}, {false, true, true, true}};
  for (const std::size_t i : least_similar(c, step)) {
    if (table.rows.size() == kListedParameters) break;
    table.rows.push_back({c.parameters[i].name, std::to_string(c.parameters[i].elements),
                          std::to_string(step.differing_by_parameter[i]),
                          similarity_text(c.similarity(step, i))});
  }
  return table;
}

// The first kListedSteps steps, and the first bad one and the step before
// it if they come later.
// With a reference, each side's similarity to it and their disagreement ratio too.
Table step_table(const GradProbeComparison& c) {
  Table table{{"step", "similarity", "fall", "signs differing", "least similar parameter", "verdict"},
              {},
              {true, true, true, true, false, false}};
  if (c.reference) {
    table.header.insert(table.header.begin() + 2, {"A to R", "B to R", "ratio"});
    table.numeric.insert(table.numeric.begin() + 2, {true, true, true});
  }
  const auto add = [&](std::size_t index) {
    const ProbeStep& step = c.steps[index];
    const std::size_t worst = least_similar(c, step).front();
    std::vector<std::string> row{
        std::to_string(step.step), similarity_text(step.similarity),
        step.fall ? format_number(*step.fall) : "", std::to_string(step.differing),
        c.parameters[worst].name + " " + similarity_text(c.similarity(step, worst)),
        step.verdict == ProbeStep::Verdict::kGood ? "" : reason(c, step)};
    if (c.reference) {
      const ReferenceAgreement* r = step.reference ? &*step.reference : nullptr;
      row.insert(row.begin() + 2, {r ? similarity_text(r->a) : "", r ? similarity_text(r->b) : "",
                                   r ? format_number(r->ratio) : ""});
    }
    table.rows.push_back(std::move(row));
  };
  for (std::size_t i = 0; i < std::min(kListedSteps, c.steps.size()); ++i) add(i);
  if (c.first_bad && *c.first_bad >= kListedSteps) {
    if (*c.first_bad > kListedSteps) add(*c.first_bad - 1);
    add(*c.first_bad);
  }
  return table;
}

Document grad_probe_document(const GradProbeComparison& c) {
  Document document;
  document.heading("Gradient sign probe", 1);
  document.fields(input_fields(c));
  document.verdict(grad_probe_verdict(c), c.passed());
  if (c.first_bad) {
    const ProbeStep& bad = c.steps[*c.first_bad];
    document.heading("Least similar parameters at step " + std::to_string(bad.step));
    document.table(parameter_table(c, bad));
    document.paragraph(
        "Gradients flow backward from the loss, so a fault in one layer changes the gradients "
        "of every layer before it: the parameter nearest the loss among the least similar is "
        "the first place to look. Dump that step of both runs (--dump-steps " +
        std::to_string(bad.step) + ") and find the first tensor that differs with `parity compare`.");
  }
  if (!c.steps.empty()) {
    document.heading("Steps");
    document.table(step_table(c));
    if (c.steps.size() > kListedSteps)
      document.paragraph("The first " + std::to_string(kListedSteps) + " of " +
                         std::to_string(c.steps.size()) +
                         " common steps, and the first bad one (json lists every step).");
  }
  std::vector<std::vector<std::string>> counts{{"common steps", std::to_string(c.steps.size())}};
  if (!c.only_a.empty()) counts.push_back({"only in A", steps_text(c.only_a)});
  if (!c.only_b.empty()) counts.push_back({"only in B", steps_text(c.only_b)});
  document.heading("Counts");
  document.fields(counts);
  return document;
}

nlohmann::ordered_json step_json(const GradProbeComparison& c, const ProbeStep& step) {
  nlohmann::ordered_json similarities = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < c.parameters.size(); ++i)
    similarities.push_back(c.similarity(step, i));
  nlohmann::ordered_json reference;
  if (step.reference)
    reference = {{"a_similarity", step.reference->a},
                 {"b_similarity", step.reference->b},
                 {"ratio", step.reference->ratio}};
  return {{"step", step.step},
          {"similarity", step.similarity},
          {"fall", step.fall ? nlohmann::ordered_json(*step.fall) : nlohmann::ordered_json()},
          {"differing", step.differing},
          {"reference", reference},
          {"verdict", verdict_name(step.verdict)},
          {"parameter_similarity", similarities}};
}

nlohmann::ordered_json grad_probe_json(const GradProbeComparison& c) {
  nlohmann::ordered_json data;
  data["verdict"] = c.passed() ? "match" : c.steps.empty() ? "no_common_step" : "bad_step";
  data["summary"] = grad_probe_verdict(c);
  const auto side = [](const ProbeSide& s) {
    return nlohmann::ordered_json{
        {"source", s.source}, {"producer", s.producer}, {"steps", s.records}};
  };
  data["a"] = side(c.a);
  data["b"] = side(c.b);
  data["reference"] = c.reference ? side(*c.reference) : nlohmann::ordered_json();
  data["thresholds"] = {{"min_similarity", c.thresholds.min_similarity},
                        {"max_fall", c.thresholds.max_fall},
                        {"reference_ratio", c.thresholds.reference_ratio},
                        {"disagreement_floor", kDisagreementFloor}};
  data["elements"] = c.elements;
  data["parameters"] = nlohmann::ordered_json::array();
  for (const ProbeParameter& p : c.parameters)
    data["parameters"].push_back({{"name", p.name}, {"shape", p.shape}, {"elements", p.elements}});
  data["first_bad_step"] =
      c.first_bad ? nlohmann::ordered_json(c.steps[*c.first_bad].step) : nlohmann::ordered_json();
  data["only_a"] = c.only_a;
  data["only_b"] = c.only_b;
  data["steps"] = nlohmann::ordered_json::array();
  for (const ProbeStep& step : c.steps) data["steps"].push_back(step_json(c, step));
  return data;
}

}  // namespace

std::string grad_probe_verdict(const GradProbeComparison& c) {
  if (c.steps.empty()) return "NO COMMON STEP: the probes share no step, nothing was compared";
  if (c.first_bad) {
    const ProbeStep& step = c.steps[*c.first_bad];
    std::string text = "FIRST BAD STEP " + std::to_string(step.step) + ": sign similarity " +
                       similarity_text(step.similarity) + ", " + reason(c, step);
    if (*c.first_bad > 0) {
      const ProbeStep& before = c.steps[*c.first_bad - 1];
      text += "; " + similarity_text(before.similarity) + " at step " + std::to_string(before.step);
    }
    return text;
  }
  const auto judged = [](const ProbeStep& step) { return step.reference.has_value(); };
  if (std::any_of(c.steps.begin(), c.steps.end(), judged)) {
    const ProbeStep* worst = nullptr;
    for (const ProbeStep& step : c.steps)
      if (judged(step) && (!worst || step.reference->ratio > worst->reference->ratio)) worst = &step;
    return "MATCH: A's signs stray from R's no more than B's in " +
           std::to_string(c.steps.size()) + " common steps (largest ratio " +
           format_number(worst->reference->ratio) + " at step " + std::to_string(worst->step) +
           ", limit " + format_number(c.thresholds.reference_ratio) + ")";
  }
  const auto lowest = std::min_element(c.steps.begin(), c.steps.end(), [](const auto& x, const auto& y) {
    return x.similarity < y.similarity;
  });
  return "MATCH: no bad step in " + std::to_string(c.steps.size()) +
         " common steps (lowest sign similarity " + similarity_text(lowest->similarity) +
         " at step " + std::to_string(lowest->step) + ")";
}

std::vector<std::string> grad_probe_report_formats() {
  return format_names({ReportPart::kDocument, ReportPart::kData});
}

Report grad_probe_report(const GradProbeComparison& comparison) {
  Report report;
  report.document = grad_probe_document(comparison);
  report.data = grad_probe_json(comparison);
  return report;
}

}  // namespace parity::analyzer
