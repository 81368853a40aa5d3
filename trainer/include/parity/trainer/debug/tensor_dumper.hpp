// TensorDumper: the observer behind `parity-train train --dump DIR`. For the
// selected steps it writes the input batch, every module's forward output,
// the loss, the gradient flowing back into every module, every parameter's
// gradient, and the parameters before and after the optimizer step, as .npy
// files and a manifest in execution order (docs/formats/dump.md).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "parity/importers/dump/dump_writer.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/debug/step_selection.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

// What a dump holds (`--dump-what fwd,bwd,params,grads`).
struct DumpContents {
  bool forward = true;   // input, module outputs, loss
  bool backward = true;  // grad_output of every module
  bool params = true;    // param_before / param_after
  bool grads = true;     // parameters' gradients

  static DumpContents parse(std::string_view text);  // an Error names a bad item
};

struct DumpOptions {
  std::filesystem::path dir;
  StepSelection steps;  // default: every step
  DumpContents what;
  bool stats_only = false;
  std::string model;     // recorded in the header ("resnet50")
  importers::RunSettings settings;  // recorded in the header too
};

class TensorDumper final : public TensorObserver {
 public:
  TensorDumper(Backend& backend, const DumpOptions& options);

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
  void write(std::string_view phase, std::string name, std::string module, std::string_view op,
             std::string_view role, const Tensor& tensor);
  void write_parameters(const ModelState& state, std::string_view role);

  Backend& backend_;
  DumpOptions options_;
  importers::DumpWriter writer_;
  std::int64_t step_ = -1;
  bool active_ = false;  // this step is selected
  // Each parameter's module and op, learnt when its gradient arrives, for the
  // update records (the optimizer sees parameters, not modules).
  std::map<std::string, std::pair<std::string, std::string>, std::less<>> owners_;
};

}  // namespace parity::trainer
