#include "parity/analyzer/grad_probe/grad_probe_compare.hpp"

#include <bit>
#include <cmath>
#include <map>

#include "parity/core/error.hpp"
#include "parity/importers/grad_probe/grad_probe_reader.hpp"

namespace parity::analyzer {
namespace {

using importers::GradProbeReader;
using importers::ProbedParameter;

constexpr const char* kSameParameters =
    "probe the same parameters on both sides: the same --probe-grads globs on the same model";

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// Names listed in `names` but not found by `has`, as "x, y and 3 more".
template <class Has>
std::string missing_names(const std::vector<ProbedParameter>& names, Has has) {
  std::vector<std::string> missing;
  for (const ProbedParameter& p : names)
    if (!has(p.name)) missing.push_back(p.name);
  std::string text;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, missing.size()); ++i)
    text += (i ? ", " : "") + missing[i];
  if (missing.size() > 3) text += " and " + std::to_string(missing.size() - 3) + " more";
  return text;
}

// Which probes a pairing names in its errors.
struct SideNames {
  const char* first = "A";
  const char* second = "B";
};

// For each of the first probe's parameters, its index in the second; an
// Error when the two do not hold the same parameters with the same shapes.
std::vector<std::size_t> pair_parameters(const GradProbeReader& a, const GradProbeReader& b,
                                         const SideNames& names) {
  std::map<std::string, std::size_t, std::less<>> in_b;
  for (std::size_t i = 0; i < b.header().parameters.size(); ++i)
    in_b.emplace(b.header().parameters[i].name, i);
  std::map<std::string, std::size_t, std::less<>> in_a;
  for (std::size_t i = 0; i < a.header().parameters.size(); ++i)
    in_a.emplace(a.header().parameters[i].name, i);
  const auto where = [](const GradProbeReader& side) {
    return (side.dir() / std::string(importers::kGradProbeHeaderFile)).string();
  };
  if (const std::string missing = missing_names(
          a.header().parameters, [&](const std::string& name) { return in_b.count(name) > 0; });
      !missing.empty())
    throw Error(std::string(names.second) + " does not probe " + missing + ", which " +
                    names.first + " probes",
                where(b), kSameParameters);
  if (const std::string missing = missing_names(
          b.header().parameters, [&](const std::string& name) { return in_a.count(name) > 0; });
      !missing.empty())
    throw Error(std::string(names.first) + " does not probe " + missing + ", which " +
                    names.second + " probes",
                where(a), kSameParameters);
  std::vector<std::size_t> b_index;
  for (const ProbedParameter& p : a.header().parameters) {
    const ProbedParameter& q = b.header().parameters[in_b.at(p.name)];
    if (p.shape != q.shape)
      throw Error(p.name + " is " + shape_text(p.shape) + " in " + names.first + ", " +
                      shape_text(q.shape) + " in " + names.second,
                  where(a) + " and " + where(b), "the two runs must train the same network");
    b_index.push_back(in_b.at(p.name));
  }
  return b_index;
}

// Elements whose bits differ; bits past the last element are ignored.
std::int64_t differing_bits(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                            std::int64_t elements) {
  std::int64_t count = 0;
  const std::size_t last = a.size() - 1;
  for (std::size_t w = 0; w < last; ++w) count += std::popcount(a[w] ^ b[w]);
  const int tail = static_cast<int>(elements - 64 * static_cast<std::int64_t>(last));
  const std::uint64_t mask = tail == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << tail) - 1;
  return count + std::popcount((a[last] ^ b[last]) & mask);
}

void check(const ProbeThresholds& thresholds) {
  if (!(thresholds.min_similarity >= 0 && thresholds.min_similarity <= 1))
    throw Error("the threshold " + std::to_string(thresholds.min_similarity) + " is not in [0, 1]",
                "--threshold", "a similarity is a fraction of elements: 0.97");
  if (!(thresholds.max_fall >= 0 && thresholds.max_fall <= 1))
    throw Error("the fall " + std::to_string(thresholds.max_fall) + " is not in [0, 1]", "--max-fall",
                "a fall is a difference of similarities: 0.03");
  if (!(thresholds.reference_ratio >= 1))
    throw Error("the ratio " + std::to_string(thresholds.reference_ratio) + " is under 1",
                "--reference-ratio", "A may stray this many times as far from R as B: 2");
}

// The verdict of a step, by the reference where it holds the step.
ProbeStep::Verdict judge(const ProbeStep& step, const ProbeThresholds& thresholds) {
  if (step.reference)
    return step.reference->ratio > thresholds.reference_ratio
               ? ProbeStep::Verdict::kFurtherFromReference
               : ProbeStep::Verdict::kGood;
  if (step.similarity < thresholds.min_similarity) return ProbeStep::Verdict::kBelow;
  if (step.fall && *step.fall > thresholds.max_fall) return ProbeStep::Verdict::kFell;
  return ProbeStep::Verdict::kGood;
}

// Two probes merged by step: each common step's differing signs and
// similarity (its fall from the step before), and the steps only one holds.
// No verdicts.
GradProbeComparison compare_pair(const std::filesystem::path& a_dir,
                                 const std::filesystem::path& b_dir, const SideNames& names) {
  GradProbeReader a(a_dir), b(b_dir);
  const std::vector<std::size_t> b_index = pair_parameters(a, b, names);
  GradProbeComparison comparison;
  comparison.a = {a_dir.string(), a.header().producer, a.records()};
  comparison.b = {b_dir.string(), b.header().producer, b.records()};
  for (const ProbedParameter& p : a.header().parameters) {
    comparison.parameters.push_back({p.name, p.shape, p.elements});
    comparison.elements += p.elements;
  }
  // Both files rise by step.
  bool more_a = a.next(), more_b = b.next();
  while (more_a || more_b) {
    if (more_a && (!more_b || a.step() < b.step())) {
      comparison.only_a.push_back(a.step());
      more_a = a.next();
      continue;
    }
    if (more_b && (!more_a || b.step() < a.step())) {
      comparison.only_b.push_back(b.step());
      more_b = b.next();
      continue;
    }
    ProbeStep step;
    step.step = a.step();
    for (std::size_t i = 0; i < comparison.parameters.size(); ++i) {
      const std::int64_t differing = differing_bits(
          a.parameter_words(i), b.parameter_words(b_index[i]), comparison.parameters[i].elements);
      step.differing_by_parameter.push_back(differing);
      step.differing += differing;
    }
    step.similarity = comparison.elements == 0
                          ? 1.0
                          : 1.0 - double(step.differing) / double(comparison.elements);
    if (!comparison.steps.empty())
      step.fall = comparison.steps.back().similarity - step.similarity;
    comparison.steps.push_back(std::move(step));
    more_a = a.next();
    more_b = b.next();
  }
  return comparison;
}

// Each common step's similarity of a probe to the reference.
std::map<std::int64_t, double> similarity_by_step(const GradProbeComparison& to_reference) {
  std::map<std::int64_t, double> similarity;
  for (const ProbeStep& step : to_reference.steps) similarity[step.step] = step.similarity;
  return similarity;
}

}  // namespace

double GradProbeComparison::similarity(const ProbeStep& step, std::size_t parameter) const {
  const std::int64_t n = parameters[parameter].elements;
  return n == 0 ? 1.0 : 1.0 - double(step.differing_by_parameter[parameter]) / double(n);
}

GradProbeComparison compare_grad_probes(const std::filesystem::path& a_dir,
                                        const std::filesystem::path& b_dir,
                                        const ProbeThresholds& thresholds,
                                        const std::optional<std::filesystem::path>& reference) {
  check(thresholds);
  GradProbeComparison comparison = compare_pair(a_dir, b_dir, {});
  comparison.thresholds = thresholds;
  std::map<std::int64_t, double> a_to_r, b_to_r;
  if (reference) {
    const GradProbeComparison a_r = compare_pair(a_dir, *reference, {"A", "R"});
    a_to_r = similarity_by_step(a_r);
    b_to_r = similarity_by_step(compare_pair(b_dir, *reference, {"B", "R"}));
    comparison.reference = a_r.b;
  }
  for (std::size_t i = 0; i < comparison.steps.size(); ++i) {
    ProbeStep& step = comparison.steps[i];
    const auto a_r = a_to_r.find(step.step), b_r = b_to_r.find(step.step);
    if (a_r != a_to_r.end() && b_r != b_to_r.end()) {
      const double a_off = std::max(1.0 - a_r->second, kDisagreementFloor);
      const double b_off = std::max(1.0 - b_r->second, kDisagreementFloor);
      step.reference = ReferenceAgreement{a_r->second, b_r->second, a_off / b_off};
    }
    step.verdict = judge(step, thresholds);
    if (step.verdict != ProbeStep::Verdict::kGood && !comparison.first_bad) comparison.first_bad = i;
  }
  return comparison;
}

}  // namespace parity::analyzer
