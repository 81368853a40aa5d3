#include "parity/trainer/loss/softmax_cross_entropy.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "parity/core/error.hpp"

namespace parity::trainer {
namespace {

// Everything in double; only the logits and their gradient are Real.
template <class Real>
BasicLossResult<Real> cross_entropy_of(std::span<const Real> logits,
                                       std::span<const std::int32_t> labels, std::int64_t classes,
                                       const LossOptions& options) {
  const auto batch = static_cast<std::int64_t>(labels.size());
  if (classes < 2 || static_cast<std::int64_t>(logits.size()) != batch * classes)
    throw Error(std::to_string(logits.size()) + " logits for " + std::to_string(batch) +
                    " labels of " + std::to_string(classes) + " classes",
                "softmax cross-entropy");
  const double eps = options.smoothing;
  const double off = options.convention == SmoothingConvention::kPyTorch
                         ? eps / double(classes)
                         : eps / double(classes - 1);
  const double on =
      options.convention == SmoothingConvention::kPyTorch ? 1.0 - eps + off : 1.0 - eps;

  BasicLossResult<Real> result;
  result.grad_logits.resize(logits.size());
  std::vector<double> log_prob(static_cast<std::size_t>(classes));
  double total = 0.0;
  for (std::int64_t n = 0; n < batch; ++n) {
    const std::int32_t label = labels[static_cast<std::size_t>(n)];
    if (label < 0 || label >= classes)
      throw Error("label " + std::to_string(label) + " of sample " + std::to_string(n) +
                      " is outside [0, " + std::to_string(classes) + ")",
                  "softmax cross-entropy");
    const Real* row = logits.data() + n * classes;
    const double peak = *std::max_element(row, row + classes);
    double sum = 0.0;
    for (std::int64_t k = 0; k < classes; ++k) sum += std::exp(double(row[k]) - peak);
    const double log_sum = std::log(sum) + peak;
    double target_sum = 0.0, sample_loss = 0.0;
    std::int64_t best = 0;
    for (std::int64_t k = 0; k < classes; ++k) {
      log_prob[k] = double(row[k]) - log_sum;
      const double target = k == label ? on : off;
      sample_loss -= target * log_prob[k];
      target_sum += target;
      if (row[k] > row[best]) best = k;
    }
    total += sample_loss;
    result.correct += best == label;
    // d/dz of -sum_k t_k log softmax(z)_k is softmax(z) * sum(t) - t.
    const double factor = options.scale / double(batch);
    for (std::int64_t k = 0; k < classes; ++k)
      result.grad_logits[n * classes + k] =
          Real(factor * (std::exp(log_prob[k]) * target_sum - (k == label ? on : off)));
  }
  result.loss = total / double(batch);
  return result;
}

}  // namespace

LossResult softmax_cross_entropy(std::span<const float> logits,
                                 std::span<const std::int32_t> labels, std::int64_t classes,
                                 const LossOptions& options) {
  return cross_entropy_of(logits, labels, classes, options);
}

BasicLossResult<double> softmax_cross_entropy(std::span<const double> logits,
                                              std::span<const std::int32_t> labels,
                                              std::int64_t classes, const LossOptions& options) {
  return cross_entropy_of(logits, labels, classes, options);
}

std::int64_t count_top_k(std::span<const float> logits, std::span<const std::int32_t> labels,
                         std::int64_t classes, std::int64_t k) {
  if (static_cast<std::int64_t>(logits.size()) !=
      static_cast<std::int64_t>(labels.size()) * classes)
    throw Error(std::to_string(logits.size()) + " logits for " + std::to_string(labels.size()) +
                    " labels of " + std::to_string(classes) + " classes",
                "top-k accuracy");
  std::int64_t hits = 0;
  for (std::size_t n = 0; n < labels.size(); ++n) {
    if (labels[n] < 0 || labels[n] >= classes)
      throw Error("label " + std::to_string(labels[n]) + " of sample " + std::to_string(n) +
                      " is outside [0, " + std::to_string(classes) + ")",
                  "top-k accuracy");
    const float* row = logits.data() + std::int64_t(n) * classes;
    const float own = row[labels[n]];
    // Rank = how many classes score higher (ties count for the label).
    std::int64_t higher = 0;
    for (std::int64_t c = 0; c < classes; ++c) higher += row[c] > own;
    hits += higher < k;
  }
  return hits;
}

}  // namespace parity::trainer
