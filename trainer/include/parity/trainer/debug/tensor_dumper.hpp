// TensorDumper: the observer behind `parity-train train --dump DIR`. For the
// selected steps it writes the input batch, every module's forward output,
// the loss, the gradient flowing back into every module, every parameter's
// gradient, the parameters and buffers (batch norms' running statistics and
// batch counts) before and after the step, and, when asked, the optimizer's
// state after it, as .npy files and a manifest in execution order
// (docs/formats/dump.md). A float64 run's floating records are float64.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parity/importers/dump/dump_writer.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/debug/step_selection.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

// What a dump holds (`--dump-what fwd,bwd,params,grads,buffers,optimizer`).
struct DumpContents {
  bool forward = true;     // input, module outputs, loss
  bool backward = true;    // grad_output of every module
  bool params = true;      // param_before / param_after
  bool grads = true;       // parameters' gradients
  bool buffers = true;     // buffer_before / buffer_after
  bool optimizer = false;  // optimizer_state_after: only when asked for

  static DumpContents parse(std::string_view text);  // an Error names a bad item
};

struct DumpOptions {
  std::filesystem::path dir;
  StepSelection steps;  // default: every step
  DumpContents what;
  bool stats_only = false;
  bool float64 = false;  // the backend keeps float64 (precision: float64): records are float64
  std::string model;     // recorded in the header ("resnet50")
  importers::RunSettings settings;  // recorded in the header too
};

class TensorDumper final : public TensorObserver {
 public:
  // `state` is the model's: its buffers are read as each step begins.
  TensorDumper(Backend& backend, const DumpOptions& options, const ModelState& state);

  void begin_step(std::int64_t step) override;
  void input(const Tensor& images) override;
  void forward_output(const Module& module, const Tensor& output) override;
  void loss(double value) override;
  void grad_output(const Module& module, const Tensor& grad) override;
  void parameter_grad(const Module& module, const Parameter& parameter) override;
  void before_update(const ModelState& state) override;
  void after_update(const ModelState& state) override;

  std::int64_t records() const { return writer_.records(); }
  std::uint64_t bytes_written() const { return writer_.bytes_written(); }

 private:
  // A tensor's values on the host, in the precision its records have.
  using HostCopy = std::variant<std::vector<float>, std::vector<double>>;
  // A buffer's values on the host: a floating tensor's, or a counter's.
  struct BufferValues {
    HostCopy values;
    std::int64_t count = 0;
  };

  importers::DumpRecord record(std::string_view phase, std::string name, std::string module,
                               std::string_view op, std::string_view role, Dims shape) const;
  // A tensor's record: its statistics read in place when the dump is
  // stats-only and the backend allows, else a host copy's values.
  void write(importers::DumpRecord record, const Tensor& tensor);
  void write(std::string_view phase, std::string name, std::string module, std::string_view op,
             std::string_view role, const Tensor& tensor);
  // An update-phase record of a parameter, buffer or optimizer state owned
  // by `module` (with the op it was seen running).
  importers::DumpRecord owned_record(std::string name, std::string module, std::string_view role,
                                     Dims shape) const;
  void write_parameters(const ModelState& state, std::string_view role);
  std::vector<BufferValues> read_buffers() const;
  void write_buffers(const std::vector<BufferValues>& buffers, std::string_view role);
  void write_optimizer_state(const ModelState& state);
  HostCopy host_copy(const Tensor& tensor) const;
  void write_copy(importers::DumpRecord record, const HostCopy& values);

  Backend& backend_;
  DumpOptions options_;
  const ModelState& state_;
  importers::DumpWriter writer_;
  std::vector<float> host_;  // the tensor being written; grows to the largest
  std::int64_t step_ = -1;
  bool active_ = false;  // this step is selected
  // Each module's op, learnt as it runs, for the update records (the
  // optimizer sees parameters and buffers, not modules).
  std::map<std::string, std::string, std::less<>> module_ops_;
  std::vector<BufferValues> buffers_before_;  // as the step began, state_dict order
};

}  // namespace parity::trainer
