#include <array>
#include <cmath>
#include <exception>
#include <optional>

#include "block_precondition.hpp"
#include "damped_inverse.hpp"
#include "kronecker_factors.hpp"
#include "layer_curvature.hpp"
#include "parity/core/error.hpp"
#include "parity/trainer/optim/thor.hpp"

namespace parity::trainer {

using thor::BlockDiagonal;
using thor::LayerCurvature;

namespace {

constexpr std::string_view kThorTensorPrefix = "optimizer.thor.";

std::optional<profiler::Scope> range(profiler::Recorder* recorder, profiler::NameId name) {
  if (!recorder) return std::nullopt;
  return std::optional<profiler::Scope>(std::in_place, *recorder, name, profiler::Category::kOp);
}

}  // namespace

ThorPreconditioner::ThorPreconditioner(Backend& backend, const ModelState& state, ThorOptions options,
                                       Communicator* communicator, profiler::Recorder* recorder)
    : backend_(backend),
      options_(std::move(options)),
      communicator_(communicator),
      recorder_(recorder),
      layer_by_parameter_(state.parameters.size(), -1),
      collect_name_(profiler::intern("thor_collect")),
      factors_name_(profiler::intern("thor_factors")),
      inverse_name_(profiler::intern("thor_inverse")),
      allreduce_name_(profiler::intern("thor_allreduce")),
      precondition_name_(profiler::intern("thor_precondition")) {
  if (options_.frequency < 1) throw Error("frequency must be at least 1", "THOR");
  for (const Parameter& p : state.parameters) {
    if (p.shape.size() != 2 && p.shape.size() != 4) continue;
    LayerCurvature layer;
    layer.weight = &p;
    layer.rows = p.shape[0];
    layer.columns = element_count(p.shape) / p.shape[0];
    layer.geometry.kind = p.shape.size() == 4 ? WeightGeometry::kConv : WeightGeometry::kLinear;
    layer.a_inverse = BlockDiagonal(layer.columns);
    layer.g_inverse = BlockDiagonal(layer.rows);
    layer_by_parameter_[p.index] = static_cast<std::int32_t>(layers_.size());
    layers_.push_back(std::move(layer));
  }
}

ThorPreconditioner::~ThorPreconditioner() = default;

std::int64_t ThorPreconditioner::layers() const { return static_cast<std::int64_t>(layers_.size()); }

LayerCurvature& ThorPreconditioner::layer_of(const Parameter& weight) {
  const std::int32_t index =
      weight.index < layer_by_parameter_.size() ? layer_by_parameter_[weight.index] : -1;
  if (index < 0) throw Error("parameter " + weight.name + " is not a THOR layer's weight", "THOR");
  return layers_[static_cast<std::size_t>(index)];
}

void ThorPreconditioner::begin_step(std::int64_t step) {
  if (step % options_.frequency == 0) refresh_due_ = true;
  collecting_ = refresh_due_;
}

void ThorPreconditioner::layer_input(const Parameter& weight, const WeightGeometry& geometry,
                                     const Tensor& input) {
  const auto scope = range(recorder_, collect_name_);
  LayerCurvature& layer = layer_of(weight);
  layer.geometry = geometry;
  layer.input = input.dims();
  const std::vector<float> host = backend_.to_host(input);
  const std::int64_t n = layer.input[0];
  if (layer.is_conv()) {
    layer.input_statistic = thor::batch_mean(host, n);
  } else {
    // x^T x / N (MindSpore's Ascend normalizer; its GPU path divides by in_features).
    const std::vector<float> features = thor::transpose(host, n, layer.columns);
    const BlockDiagonal a = thor::gram_blocks(features, layer.columns, n, 1.0 / double(n));
    layer.input_statistic.assign(a.values().begin(), a.values().end());
  }
}

void ThorPreconditioner::layer_output_grad(const Parameter& weight, const Tensor& grad) {
  const auto scope = range(recorder_, collect_name_);
  LayerCurvature& layer = layer_of(weight);
  const std::vector<float> host = backend_.to_host(grad);
  const std::int64_t n = grad.dims()[0];
  if (layer.is_conv()) {
    layer.out_pixels = grad.element_count() / (n * layer.rows);
    layer.output_statistic = thor::batch_mean(host, n);
  } else {
    // N dy^T dy; dy is the gradient of the batch's mean loss, so this is
    // (scale^2 / N) times the per-sample gradients' covariance.
    const std::vector<float> outputs = thor::transpose(host, n, layer.rows);
    const BlockDiagonal g = thor::gram_blocks(outputs, layer.rows, n, double(n));
    layer.output_statistic.assign(g.values().begin(), g.values().end());
  }
}

void ThorPreconditioner::precondition(std::int64_t step, double loss_scale) {
  if (collecting_) refresh(step, loss_scale);
  if (!has_inverses_)
    throw Error("THOR has no inverses at step " + std::to_string(step), "THOR",
                "the first step of a run refreshes them; was a step skipped?");
  const auto scope = range(recorder_, precondition_name_);
  const auto count = static_cast<std::int64_t>(layers_.size());
  std::vector<std::vector<float>> grads(layers_.size());
  for (std::int64_t l = 0; l < count; ++l) grads[l] = backend_.to_host(layers_[l].weight->tensors->grad);
  // One layer a thread, its products on that thread: many small GEMMs, each
  // threaded, would meet at a barrier each, which costs more than they do
  // (and ten times more on a loaded machine).
  std::vector<std::exception_ptr> errors(layers_.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t l = 0; l < count; ++l) {
    try {
      thread_local std::vector<float> scratch;
      thor::precondition(grads[l], layers_[l].g_inverse, layers_[l].a_inverse, scratch);
    } catch (...) {
      errors[l] = std::current_exception();
    }
  }
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  for (std::int64_t l = 0; l < count; ++l) backend_.write(layers_[l].weight->tensors->grad, grads[l]);
}

// The factors of each layer from its statistics, damped and inverted with
// MindSpore's GPU normalisation (docs/thor.md): a convolution's factors
// divide by its output pixels P, get sqrt(damping / P) each, and their
// inverses are scaled by sqrt(1 / P); the classifier's get sqrt(damping).
void ThorPreconditioner::refresh(std::int64_t step, double loss_scale) {
  for (const LayerCurvature& layer : layers_)
    if (layer.input_statistic.empty() || layer.output_statistic.empty())
      throw Error("THOR collected no statistics for " + layer.weight->name + " at step " +
                      std::to_string(step),
                  "THOR", "every convolution and the classifier must run in a training step");
  const bool many_ranks = communicator_ && communicator_->size() > 1;
  if (many_ranks && options_.average_statistics) average_over_ranks(true);
  const double damping = options_.dampings.at(static_cast<std::size_t>(step));
  const double unscale = 1.0 / (loss_scale * loss_scale);
  for (LayerCurvature& layer : layers_) {
    std::optional<BlockDiagonal> a, g;
    double normalizer = 1.0;
    {
      const auto scope = range(recorder_, factors_name_);
      if (layer.is_conv()) {
        const std::int64_t n = layer.input[0];
        normalizer = double(layer.out_pixels);
        const std::vector<float> columns = thor::im2col(layer.input_statistic, layer.input[1],
                                                        layer.input[2], layer.input[3], layer.geometry);
        a = thor::gram_blocks(columns, layer.columns, layer.out_pixels, 1.0 / normalizer);
        // The batch-mean gradient times N / scale is the mean per-sample gradient.
        g = thor::gram_blocks(layer.output_statistic, layer.rows, layer.out_pixels,
                              double(n) * double(n) * unscale / normalizer);
      } else {
        a.emplace(layer.columns);
        std::copy(layer.input_statistic.begin(), layer.input_statistic.end(), a->values().begin());
        g.emplace(layer.rows);
        for (std::size_t i = 0; i < layer.output_statistic.size(); ++i)
          g->values()[i] = static_cast<float>(layer.output_statistic[i] * unscale);
      }
    }
    const auto scope = range(recorder_, inverse_name_);
    const double damp = std::sqrt(damping / normalizer), scale = std::sqrt(1.0 / normalizer);
    layer.a_inverse = thor::damped_inverse(*a, damp, scale, layer.weight->name);
    layer.g_inverse = thor::damped_inverse(*g, damp, scale, layer.weight->name);
    layer.input_statistic.clear();
    layer.output_statistic.clear();
  }
  if (many_ranks && !options_.average_statistics) average_over_ranks(false);
  has_inverses_ = true;
  refresh_due_ = false;
  collecting_ = false;
}

// One AllReduce message per segment of layers (split_indices), holding
// either their statistics or their inverses, averaged over the ranks.
void ThorPreconditioner::average_over_ranks(bool statistics) {
  const auto scope = range(recorder_, allreduce_name_);
  const auto parts = [&](LayerCurvature& layer) -> std::array<std::span<float>, 2> {
    if (statistics) return {layer.input_statistic, layer.output_statistic};
    return {layer.a_inverse.values(), layer.g_inverse.values()};
  };
  std::vector<float> message;
  std::size_t first = 0;
  std::vector<std::int64_t> ends = options_.split_indices;
  ends.push_back(layers() - 1);
  for (const std::int64_t end : ends) {
    const std::size_t last = std::min<std::size_t>(static_cast<std::size_t>(end), layers_.size() - 1);
    if (last < first) continue;
    message.clear();
    for (std::size_t l = first; l <= last; ++l)
      for (const std::span<float> part : parts(layers_[l])) message.insert(message.end(), part.begin(), part.end());
    communicator_->allreduce_mean(message);
    std::size_t offset = 0;
    for (std::size_t l = first; l <= last; ++l)
      for (const std::span<float> part : parts(layers_[l])) {
        std::copy_n(message.begin() + static_cast<std::ptrdiff_t>(offset), part.size(), part.begin());
        offset += part.size();
      }
    first = last + 1;
  }
}

std::vector<importers::NamedTensor> ThorPreconditioner::export_state() const {
  std::vector<importers::NamedTensor> tensors;
  if (!has_inverses_) return tensors;
  for (const LayerCurvature& layer : layers_) {
    const std::string name = std::string(kThorTensorPrefix) + layer.weight->name;
    for (const auto& [suffix, inverse] :
         {std::pair{".a_inverse", &layer.a_inverse}, std::pair{".g_inverse", &layer.g_inverse}})
      tensors.push_back(importers::NamedTensor::from_values<float>(
          name + suffix, {static_cast<std::int64_t>(inverse->values().size())}, inverse->values()));
  }
  return tensors;
}

void ThorPreconditioner::import_state(const std::vector<importers::NamedTensor>& tensors,
                                      const std::string& where) {
  std::size_t found = 0;
  const auto take = [&](const std::string& name, BlockDiagonal& inverse) {
    for (const importers::NamedTensor& t : tensors) {
      if (t.name != name) continue;
      const std::vector<std::int64_t> expected{static_cast<std::int64_t>(inverse.values().size())};
      if (t.dtype != DType::kFloat32 || t.shape != expected)
        throw Error("tensor '" + name + "' is not " + std::to_string(expected[0]) + " float32 values",
                    where, "was the checkpoint written for another network?");
      const std::vector<float> values = t.values<float>();
      std::copy(values.begin(), values.end(), inverse.values().begin());
      ++found;
      return;
    }
  };
  for (LayerCurvature& layer : layers_) {
    const std::string name = std::string(kThorTensorPrefix) + layer.weight->name;
    take(name + ".a_inverse", layer.a_inverse);
    take(name + ".g_inverse", layer.g_inverse);
  }
  if (found != 0 && found != 2 * layers_.size())
    throw Error("the checkpoint holds THOR inverses for some layers only (" + std::to_string(found) +
                    " of " + std::to_string(2 * layers_.size()) + " tensors)",
                where);
  has_inverses_ = found != 0;
  refresh_due_ = !has_inverses_;
}

}  // namespace parity::trainer
