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

// For each of A's parameters, its index in B; an Error when the two probes
// do not hold the same parameters with the same shapes.
std::vector<std::size_t> pair_parameters(const GradProbeReader& a, const GradProbeReader& b) {
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
    throw Error("B does not probe " + missing + ", which A probes", where(b), kSameParameters);
  if (const std::string missing = missing_names(
          b.header().parameters, [&](const std::string& name) { return in_a.count(name) > 0; });
      !missing.empty())
    throw Error("A does not probe " + missing + ", which B probes", where(a), kSameParameters);
  std::vector<std::size_t> b_index;
  for (const ProbedParameter& p : a.header().parameters) {
    const ProbedParameter& q = b.header().parameters[in_b.at(p.name)];
    if (p.shape != q.shape)
      throw Error(p.name + " is " + shape_text(p.shape) + " in A, " + shape_text(q.shape) + " in B",
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
}

}  // namespace

double GradProbeComparison::similarity(const ProbeStep& step, std::size_t parameter) const {
  const std::int64_t n = parameters[parameter].elements;
  return n == 0 ? 1.0 : 1.0 - double(step.differing_by_parameter[parameter]) / double(n);
}

GradProbeComparison compare_grad_probes(const std::filesystem::path& a_dir,
                                        const std::filesystem::path& b_dir,
                                        const ProbeThresholds& thresholds) {
  check(thresholds);
  GradProbeReader a(a_dir), b(b_dir);
  const std::vector<std::size_t> b_index = pair_parameters(a, b);
  GradProbeComparison comparison;
  comparison.a = {a_dir.string(), a.header().producer, a.records()};
  comparison.b = {b_dir.string(), b.header().producer, b.records()};
  comparison.thresholds = thresholds;
  for (const ProbedParameter& p : a.header().parameters) {
    comparison.parameters.push_back({p.name, p.shape, p.elements});
    comparison.elements += p.elements;
  }
  // The two files are merged by step: both rise.
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
    if (step.similarity < thresholds.min_similarity)
      step.verdict = ProbeStep::Verdict::kBelow;
    else if (step.fall && *step.fall > thresholds.max_fall)
      step.verdict = ProbeStep::Verdict::kFell;
    if (step.verdict != ProbeStep::Verdict::kGood && !comparison.first_bad)
      comparison.first_bad = comparison.steps.size();
    comparison.steps.push_back(std::move(step));
    more_a = a.next();
    more_b = b.next();
  }
  return comparison;
}

}  // namespace parity::analyzer
