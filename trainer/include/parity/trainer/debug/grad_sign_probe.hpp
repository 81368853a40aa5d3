// GradSignProbe: the observer behind `parity-train train --probe-grads GLOBS
// --probe-dir DIR`. After every step's backward it packs the sign of every
// gradient element of the chosen parameters into one bit and appends the
// step's record to DIR (docs/formats/grad-probe.md), so that `parity
// grad-probe` can find the first step where two runs' gradients stop pointing
// the same way. Cheap enough for every step: one bit per element, read where
// the backend keeps the gradient.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "parity/importers/grad_probe/grad_probe_writer.hpp"
#include "parity/trainer/backend/backend.hpp"
#include "parity/trainer/nn/module.hpp"

namespace parity::trainer {

struct GradProbeOptions {
  std::filesystem::path dir;
  // Shell globs on parameter names (layer4.*.weight); "*" for every parameter.
  std::vector<std::string> globs;
  std::string model;  // recorded in the header ("resnet50")

  // "all", or a comma list of globs; an Error names an empty item.
  static std::vector<std::string> parse_globs(std::string_view text);
};

class GradSignProbe final : public TensorObserver {
 public:
  // Chooses the parameters of `state` (registration order) that any glob
  // matches; a glob that matches none is an Error listing a few names.
  GradSignProbe(Backend& backend, const GradProbeOptions& options, const ModelState& state);

  void begin_step(std::int64_t step) override { step_ = step; }
  void gradients_ready(const ModelState& state) override;

  std::int64_t steps() const { return writer_.steps(); }
  std::size_t parameters() const { return chosen_.size(); }

 private:
  Backend& backend_;
  std::vector<std::size_t> chosen_;  // indexes into ModelState::parameters
  importers::GradProbeWriter writer_;
  std::vector<float> host_;  // a gradient's host copy, where the backend packs no signs itself
  std::int64_t step_ = 0;
};

}  // namespace parity::trainer
