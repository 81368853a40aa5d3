// Softmax cross-entropy with label smoothing, in both conventions the seeds
// meet: PyTorch's CrossEntropyLoss(label_smoothing=eps) spreads eps over all
// K classes (target = (1 - eps) one_hot + eps / K); MindSpore's
// CrossEntropySmooth uses on-value 1 - eps and off-value eps / (K - 1). The
// loss is the batch mean; computed in double on the host (the logits are
// only N x K). The float32 logits of the float32 backends give a float32
// gradient; the float64 reference backend's give a float64 one.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace parity::trainer {

enum class SmoothingConvention { kPyTorch, kMindSpore };

struct LossOptions {
  double smoothing = 0.0;  // eps
  SmoothingConvention convention = SmoothingConvention::kPyTorch;
  double scale = 1.0;  // the gradient is multiplied by it (fixed loss scale)
};

template <class Real>
struct BasicLossResult {
  double loss = 0.0;              // mean over the batch, unscaled
  std::vector<Real> grad_logits;  // d(scale * loss) / d logits, N x K
  std::int64_t correct = 0;       // top-1 hits
};
using LossResult = BasicLossResult<float>;

// `logits` is N x K row-major; labels in [0, K).
LossResult softmax_cross_entropy(std::span<const float> logits,
                                 std::span<const std::int32_t> labels, std::int64_t classes,
                                 const LossOptions& options);
BasicLossResult<double> softmax_cross_entropy(std::span<const double> logits,
                                              std::span<const std::int32_t> labels,
                                              std::int64_t classes, const LossOptions& options);

// How many rows of `logits` have their label among the k largest values.
std::int64_t count_top_k(std::span<const float> logits, std::span<const std::int32_t> labels,
                         std::int64_t classes, std::int64_t k);

}  // namespace parity::trainer
