#include <array>
#include <cmath>
#include <optional>

#include "layer_curvature.hpp"
#include "parity/core/error.hpp"
#include "parity/trainer/optim/thor.hpp"

namespace parity::trainer {

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
    : options_(std::move(options)),
      communicator_(communicator),
      recorder_(recorder),
      layer_by_parameter_(state.parameters.size(), -1),
      collect_name_(profiler::intern("thor_collect")),
      factors_name_(profiler::intern("thor_factors")),
      inverse_name_(profiler::intern("thor_inverse")),
      allreduce_name_(profiler::intern("thor_allreduce")),
      precondition_name_(profiler::intern("thor_precondition")) {
  if (options_.frequency < 1) throw Error("frequency must be at least 1", "THOR");
  std::vector<KroneckerLayerShape> shapes;
  for (const Parameter& p : state.parameters) {
    if (p.shape.size() != 2 && p.shape.size() != 4) continue;
    LayerCurvature layer;
    layer.weight = &p;
    layer.shape = {p.shape[0], element_count(p.shape) / p.shape[0], p.shape.size() == 4};
    layer_by_parameter_[p.index] = static_cast<std::int32_t>(layers_.size());
    layers_.push_back(layer);
    shapes.push_back(layer.shape);
    grads_.push_back(&p.tensors->grad);
  }
  engine_ = backend.kronecker_engine(shapes);
  if (!engine_) engine_ = make_host_kronecker_engine(backend, shapes);
}

ThorPreconditioner::~ThorPreconditioner() = default;

std::int64_t ThorPreconditioner::layers() const { return static_cast<std::int64_t>(layers_.size()); }

std::size_t ThorPreconditioner::layer_of(const Parameter& weight) const {
  const std::int32_t index =
      weight.index < layer_by_parameter_.size() ? layer_by_parameter_[weight.index] : -1;
  if (index < 0) throw Error("parameter " + weight.name + " is not a THOR layer's weight", "THOR");
  return static_cast<std::size_t>(index);
}

void ThorPreconditioner::begin_step(std::int64_t step) {
  if (step % options_.frequency == 0) refresh_due_ = true;
  collecting_ = refresh_due_;
}

void ThorPreconditioner::layer_input(const Parameter& weight, const WeightGeometry& geometry,
                                     const Tensor& input) {
  const auto scope = range(recorder_, collect_name_);
  const std::size_t l = layer_of(weight);
  layers_[l].batch = input.dims()[0];
  engine_->collect_input(l, geometry, input);
  layers_[l].has_input = true;
}

void ThorPreconditioner::layer_output_grad(const Parameter& weight, const Tensor& grad) {
  const auto scope = range(recorder_, collect_name_);
  const std::size_t l = layer_of(weight);
  LayerCurvature& layer = layers_[l];
  if (layer.shape.conv) layer.out_pixels = grad.element_count() / (grad.dims()[0] * layer.shape.rows);
  engine_->collect_output_grad(l, grad);
  layer.has_output_grad = true;
}

void ThorPreconditioner::precondition(std::int64_t step, double loss_scale) {
  if (collecting_) refresh(step, loss_scale);
  if (!has_inverses_)
    throw Error("THOR has no inverses at step " + std::to_string(step), "THOR",
                "the first step of a run refreshes them; was a step skipped?");
  const auto scope = range(recorder_, precondition_name_);
  engine_->precondition(grads_);
}

// The factors of each layer from its statistics, damped and inverted with
// MindSpore's GPU normalisation (docs/thor.md): a convolution's factors
// divide by its output pixels P, get sqrt(damping / P) each, and their
// inverses are scaled by sqrt(1 / P); the classifier's get sqrt(damping).
// A convolution's A is the Gram matrix of the im2col of the batch-mean input;
// its G that of the batch-mean output gradient times N / scale (the mean
// per-sample gradient). The classifier's statistics are its factors already,
// G's with the loss scale not yet divided out.
void ThorPreconditioner::refresh(std::int64_t step, double loss_scale) {
  for (const LayerCurvature& layer : layers_)
    if (!layer.has_input || !layer.has_output_grad)
      throw Error("THOR collected no statistics for " + layer.weight->name + " at step " +
                      std::to_string(step),
                  "THOR", "every convolution and the classifier must run in a training step");
  const bool many_ranks = communicator_ && communicator_->size() > 1;
  if (many_ranks && options_.average_statistics) average_over_ranks(true);
  const double damping = options_.dampings.at(static_cast<std::size_t>(step));
  const double unscale = 1.0 / (loss_scale * loss_scale);
  std::vector<InverseSettings> settings;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    LayerCurvature& layer = layers_[l];
    const double n = double(layer.batch), pixels = double(layer.out_pixels);
    {
      const auto scope = range(recorder_, factors_name_);
      engine_->form_factors(l, layer.shape.conv ? FactorScales{1.0 / pixels, n * n * unscale / pixels}
                                                : FactorScales{1.0, unscale});
    }
    settings.push_back({std::sqrt(damping / pixels), std::sqrt(1.0 / pixels), layer.weight->name});
    layer.has_input = layer.has_output_grad = false;
  }
  {
    const auto scope = range(recorder_, inverse_name_);
    engine_->invert(settings);
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
  const std::array<KroneckerPart, 2> parts =
      statistics ? std::array{KroneckerPart::kInputStatistic, KroneckerPart::kOutputStatistic}
                 : std::array{KroneckerPart::kAInverse, KroneckerPart::kGInverse};
  std::vector<float> message;
  std::vector<std::size_t> sizes;
  std::size_t first = 0;
  std::vector<std::int64_t> ends = options_.split_indices;
  ends.push_back(layers() - 1);
  for (const std::int64_t end : ends) {
    const std::size_t last = std::min<std::size_t>(static_cast<std::size_t>(end), layers_.size() - 1);
    if (last < first) continue;
    message.clear();
    sizes.clear();
    for (std::size_t l = first; l <= last; ++l)
      for (const KroneckerPart part : parts) {
        const std::vector<float> values = engine_->read(l, part);
        message.insert(message.end(), values.begin(), values.end());
        sizes.push_back(values.size());
      }
    communicator_->allreduce_mean(message);
    std::size_t offset = 0, index = 0;
    for (std::size_t l = first; l <= last; ++l)
      for (const KroneckerPart part : parts) {
        engine_->write(l, part, std::span<const float>(message).subspan(offset, sizes[index]));
        offset += sizes[index++];
      }
    first = last + 1;
  }
}

std::vector<importers::NamedTensor> ThorPreconditioner::export_state() const {
  std::vector<importers::NamedTensor> tensors;
  if (!has_inverses_) return tensors;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const std::string name = std::string(kThorTensorPrefix) + layers_[l].weight->name;
    for (const auto& [suffix, part] : {std::pair{".a_inverse", KroneckerPart::kAInverse},
                                       std::pair{".g_inverse", KroneckerPart::kGInverse}}) {
      const std::vector<float> values = engine_->read(l, part);
      tensors.push_back(importers::NamedTensor::from_values<float>(
          name + suffix, {static_cast<std::int64_t>(values.size())}, values));
    }
  }
  return tensors;
}

void ThorPreconditioner::import_state(const std::vector<importers::NamedTensor>& tensors,
                                      const std::string& where) {
  std::size_t found = 0;
  const auto take = [&](const std::string& name, std::size_t l, KroneckerPart part, std::int64_t dim) {
    for (const importers::NamedTensor& t : tensors) {
      if (t.name != name) continue;
      const std::vector<std::int64_t> expected{BlockLayout{dim}.storage_size()};
      if (t.dtype != DType::kFloat32 || t.shape != expected)
        throw Error("tensor '" + name + "' is not " + std::to_string(expected[0]) + " float32 values",
                    where, "was the checkpoint written for another network?");
      engine_->write(l, part, t.values<float>());
      ++found;
      return;
    }
  };
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const std::string name = std::string(kThorTensorPrefix) + layers_[l].weight->name;
    take(name + ".a_inverse", l, KroneckerPart::kAInverse, layers_[l].shape.columns);
    take(name + ".g_inverse", l, KroneckerPart::kGInverse, layers_[l].shape.rows);
  }
  if (found != 0 && found != 2 * layers_.size())
    throw Error("the checkpoint holds THOR inverses for some layers only (" + std::to_string(found) +
                    " of " + std::to_string(2 * layers_.size()) + " tensors)",
                where);
  has_inverses_ = found != 0;
  refresh_due_ = !has_inverses_;
}

}  // namespace parity::trainer
