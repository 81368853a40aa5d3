#include "parity/trainer/nn/layer.hpp"

namespace parity::trainer {

WeightGeometry WeightGeometry::conv(const Conv2dSpec& spec) {
  return {kConv, spec.kernel, spec.stride, spec.padding, spec.end_padding()};
}

Layer::Layer(std::string name, Tracing& tracing, std::unique_ptr<LayerOp> op, Kind kind)
    : Module(std::move(name), tracing), op_(std::move(op)), kind_(kind) {
  name_op_ranges();
}

Layer::Layer(std::string name, Tracing& tracing, std::unique_ptr<LayerOp> op, WeightGeometry geometry)
    : Layer(std::move(name), tracing, std::move(op)) {
  geometry_ = geometry;
}

CurvatureTap* Layer::collecting_tap() const {
  CurvatureTap* tap = tracing().curvature;
  return geometry_ && tap && tap->collecting() && !parameters_.empty() ? tap : nullptr;
}

void Layer::collect(ModelState& state) {
  parameters_.clear();
  for (const ParamSlot& slot : op_->parameters()) {
    Parameter parameter{child_name(slot.suffix), slot.shape, slot.tensors, slot.weight_decay,
                        static_cast<std::uint32_t>(state.parameters.size())};
    state.entries.push_back({StateEntry::kParameter, parameter.name, slot.shape,
                             &slot.tensors->value, nullptr});
    state.parameters.push_back(parameter);
    parameters_.push_back(parameter);
  }
  for (const BufferSlot& slot : op_->buffers())
    state.entries.push_back(
        {StateEntry::kBuffer, child_name(slot.suffix), slot.shape, slot.tensor, nullptr});
  if (kind_ == kBatchNorm)
    state.entries.push_back(
        {StateEntry::kCounter, child_name("num_batches_tracked"), {}, nullptr, &num_batches_tracked_});
}

Tensor Layer::run_forward(const Tensor& x, Mode mode) {
  if (kind_ == kBatchNorm && mode == Mode::kTrain) ++num_batches_tracked_;
  if (mode == Mode::kTrain)
    if (CurvatureTap* tap = collecting_tap()) tap->layer_input(parameters_.front(), *geometry_, x);
  const auto range = op_range(Pass::kForward);
  return op_->forward(x, mode);
}

Tensor Layer::run_backward(const Tensor& dy) {
  if (CurvatureTap* tap = collecting_tap()) tap->layer_output_grad(parameters_.front(), dy);
  Tensor dx;
  {
    const auto range = op_range(Pass::kBackward);
    dx = op_->backward(dy);
  }
  if (TensorObserver* observer = tracing().observer)
    for (const Parameter& p : parameters_) observer->parameter_grad(*this, p);
  GradientHook* hook = tracing().gradients;
  profiler::Recorder* recorder = tracing().recorder;
  if (recorder && !(hook && hook->records_ready_times()))
    for (const Parameter& p : parameters_)
      recorder->gradient_ready(p.index, static_cast<std::uint64_t>(element_count(p.shape)) * 4);
  if (hook)
    for (const Parameter& p : parameters_) hook->gradient_ready(p);
  return dx;
}

}  // namespace parity::trainer
