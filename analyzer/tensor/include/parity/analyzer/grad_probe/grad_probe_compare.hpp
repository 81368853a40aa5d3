// Two gradient-sign probes (docs/formats/grad-probe.md) compared step by
// step (`parity grad-probe A B`): for each step both recorded, the fraction
// of gradient elements whose sign bits agree, per parameter and over all
// probed elements, and the first step where that similarity falls below a
// threshold or drops by more than a margin from the step before (msprobe's
// grad_probe rule: 0.97, a fall of 0.03). With a third probe from a float64
// run (`--reference R`), a step is judged instead by whose signs stray
// further from R's: A's or B's, as `parity compare --reference` judges tensors.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace parity::analyzer {

struct ProbeThresholds {
  double min_similarity = 0.97;  // a step below it is bad
  double max_fall = 0.03;        // a step more than this below the step before is bad
  // With a reference: a step is bad where A's sign disagreement with R is
  // more than this many times B's, each raised to kDisagreementFloor first.
  double reference_ratio = 2.0;
};

// The least disagreement a reference ratio divides by: 0.1% of the
// elements, under what float32 rounding alone gives between two runs'
// first steps (0.2-0.3% on ResNet-50), so that runs that nearly agree with
// R are not told apart by a handful of elements.
inline constexpr double kDisagreementFloor = 1e-3;

// How far each side's signs are from the reference's at one step.
struct ReferenceAgreement {
  double a = 1.0, b = 1.0;  // A's and B's similarity to R
  double ratio = 1.0;       // A's disagreement over B's, each at least kDisagreementFloor
};

struct ProbeSide {
  std::string source;    // the directory
  std::string producer;  // from its header
  std::int64_t records = 0;
};

struct ProbeParameter {
  std::string name;
  std::vector<std::int64_t> shape;
  std::int64_t elements = 0;
};

struct ProbeStep {
  enum class Verdict { kGood, kBelow, kFell, kFurtherFromReference };
  std::int64_t step = 0;
  std::int64_t differing = 0;  // elements whose sign bits differ, over every parameter
  double similarity = 1.0;     // 1 - differing / elements
  std::optional<double> fall;  // the previous common step's similarity minus this one's
  Verdict verdict = Verdict::kGood;
  std::vector<std::int64_t> differing_by_parameter;  // in GradProbeComparison::parameters order
  // Where the reference holds the step: the verdict is the reference's.
  std::optional<ReferenceAgreement> reference;
};

struct GradProbeComparison {
  ProbeSide a, b;
  std::optional<ProbeSide> reference;
  std::vector<ProbeParameter> parameters;  // A's order
  std::int64_t elements = 0;               // over every parameter
  ProbeThresholds thresholds;
  std::vector<ProbeStep> steps;            // the steps both hold, rising
  std::vector<std::int64_t> only_a, only_b;
  std::optional<std::size_t> first_bad;    // into steps

  bool passed() const { return !steps.empty() && !first_bad; }
  double similarity(const ProbeStep& step, std::size_t parameter) const;
};

// Throws parity::Error (exit code 2) for a probe that cannot be read, two
// probes of different parameters or shapes, thresholds outside [0, 1] or a
// reference ratio under 1. Steps the reference lacks keep the threshold rules.
GradProbeComparison compare_grad_probes(
    const std::filesystem::path& a, const std::filesystem::path& b,
    const ProbeThresholds& thresholds,
    const std::optional<std::filesystem::path>& reference = std::nullopt);

}  // namespace parity::analyzer
