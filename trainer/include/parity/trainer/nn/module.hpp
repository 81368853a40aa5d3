// Module: a named piece of a network (torchvision's nn.Module, without
// autograd): forward keeps what backward needs, backward returns the input's
// gradient and leaves the parameters' gradients in their tensors. The model
// state is listed in torchvision's state_dict order with its names
// ("layer1.0.conv1.weight", "bn1.running_mean", "bn1.num_batches_tracked").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parity/profiler/recorder.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/nn/tensor_observer.hpp"

namespace parity::trainer {

struct Parameter {
  std::string name;
  Dims shape;
  ParamTensors* tensors = nullptr;
  bool weight_decay = true;  // false: the no-decay group (BN weight and bias, biases)
  std::uint32_t index = 0;   // position in registration order (gradient-ready events use it)
};

struct StateEntry {
  enum Kind { kParameter, kBuffer, kCounter };
  Kind kind = kParameter;
  std::string name;
  Dims shape;
  Tensor* tensor = nullptr;         // kParameter (its value) and kBuffer
  std::int64_t* counter = nullptr;  // kCounter: an int64 scalar (num_batches_tracked)
};

struct ModelState {
  std::vector<Parameter> parameters;  // registration order
  std::vector<StateEntry> entries;    // state_dict order
};

// What acts on a parameter's gradient as soon as backward has written it
// (data parallel's reducer starts a bucket's AllReduce from it).
class GradientHook {
 public:
  virtual ~GradientHook() = default;
  virtual void gradient_ready(const Parameter& parameter) = 0;
  // Whether the hook records the trace's gradient-ready times itself (a GPU
  // reducer, which knows when the device wrote them); else the layer records
  // the host's time.
  virtual bool records_ready_times() const { return false; }
};

class CurvatureTap;

// Where modules record their ranges and gradient-ready events, who watches
// their tensors, who takes their gradients, and who reads the weighted
// layers' inputs and output gradients; null members do nothing.
struct Tracing {
  profiler::Recorder* recorder = nullptr;
  TensorObserver* observer = nullptr;
  GradientHook* gradients = nullptr;
  CurvatureTap* curvature = nullptr;
};

class Module {
 public:
  Module(std::string name, Tracing& tracing);
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }
  Tensor forward(const Tensor& x, Mode mode);
  Tensor backward(const Tensor& dy);
  // Adds this module's parameters and state, in torchvision's order.
  virtual void collect(ModelState& state) = 0;
  // What the module computes itself, as dumps name it ("conv2d",
  // "add_relu"); empty for a container, whose output is its last child's.
  virtual std::string_view op_kind() const { return {}; }

 protected:
  virtual Tensor run_forward(const Tensor& x, Mode mode) = 0;
  virtual Tensor run_backward(const Tensor& dy) = 0;
  Tracing& tracing() const { return tracing_; }

  // Op ranges (category kOp, inside the module's layer range) cover the
  // op's own work only, never its children's (a residual block's add_relu,
  // not its convs), so modules open them in run_forward/run_backward.
  enum class Pass { kForward, kBackward };
  // Interns the op's range names, op_kind() and op_kind() + "_backward";
  // called by the constructor of a module with an op, once op_kind() answers.
  void name_op_ranges();
  // The op's range when tracing, nothing otherwise; hold it while the op runs.
  std::optional<profiler::Scope> op_range(Pass pass) const;
  // "layer1.0" + "conv1" -> "layer1.0.conv1"
  std::string child_name(std::string_view child) const;

 private:
  std::string name_;
  Tracing& tracing_;
  profiler::NameId trace_name_;
  profiler::NameId op_forward_name_ = 0, op_backward_name_ = 0;
};

}  // namespace parity::trainer
