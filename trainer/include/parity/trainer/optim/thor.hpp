// THOR's preconditioner (MindSpore's nn.thor, GPU path; docs/thor.md): each
// convolution's and the classifier's weight gradient becomes
// G^-1 * grad * A^-1, with A and G the Kronecker factors of the layer's
// input and output-gradient covariances, damped and inverted in diagonal
// blocks of 128. The factors are collected from one step's batch every
// `frequency` steps (the first step included) and inverted then; the steps
// between reuse the inverses. Other parameters (batch norm, the bias) keep
// their gradients. The momentum update that follows is Sgd's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "parity/importers/named_tensor.hpp"
#include "parity/profiler/recorder.hpp"
#include "parity/trainer/dist/communicator.hpp"
#include "parity/trainer/nn/curvature_tap.hpp"
#include "parity/trainer/nn/module.hpp"
#include "parity/trainer/optim/kronecker_engine.hpp"

namespace parity::trainer {

namespace thor {
struct LayerCurvature;
}

struct ThorOptions {
  std::int64_t frequency = 834;  // steps between factor refreshes
  // Data parallel: the THOR layer index that ends each AllReduce segment of
  // the factor messages (MindSpore's split_indices); indices past the last
  // layer end at it.
  std::vector<std::int64_t> split_indices = {26, 53};
  // Data parallel: average the batch statistics behind the factors before
  // inverting (N ranks then equal one rank on the concatenated batch), not
  // the inverses (MindSpore's choice).
  bool average_statistics = false;
  std::vector<double> dampings;  // the damping of each global step
};

class ThorPreconditioner final : public CurvatureTap {
 public:
  // The THOR layers are the parameters of `state` with a 2-D (classifier) or
  // 4-D (convolution) shape, in registration order. The arithmetic is the
  // backend's KroneckerEngine where it has one (CUDA), else the host's.
  // `communicator` (null: one rank) and `recorder` (null: no trace) are kept.
  ThorPreconditioner(Backend& backend, const ModelState& state, ThorOptions options,
                     Communicator* communicator, profiler::Recorder* recorder);
  ~ThorPreconditioner() override;

  // Starts global step `step`: it collects when a refresh is due (every
  // `frequency` steps, or while there are no inverses yet, or when the last
  // due refresh's step was not applied).
  void begin_step(std::int64_t step);
  bool collecting() const override { return collecting_; }
  void layer_input(const Parameter& weight, const WeightGeometry& geometry, const Tensor& input) override;
  void layer_output_grad(const Parameter& weight, const Tensor& grad) override;

  // Replaces the THOR layers' weight gradients (scaled by `loss_scale`) with
  // their preconditioned ones; on a collecting step, first turns the
  // step's statistics into new inverses.
  void precondition(std::int64_t step, double loss_scale);

  std::int64_t layers() const;
  // The inverses, for a checkpoint ("optimizer.thor.<weight>.a_inverse" and
  // ".g_inverse"); none before the first refresh.
  std::vector<importers::NamedTensor> export_state() const;
  // Takes the inverses back from a checkpoint's tensors (all of them or
  // none: then the next step refreshes); throws parity::Error, naming
  // `where`, for a tensor of the wrong size or type.
  void import_state(const std::vector<importers::NamedTensor>& tensors, const std::string& where);

 private:
  std::size_t layer_of(const Parameter& weight) const;
  void refresh(std::int64_t step, double loss_scale);
  void average_over_ranks(bool statistics);

  ThorOptions options_;
  Communicator* communicator_;
  profiler::Recorder* recorder_;
  std::vector<thor::LayerCurvature> layers_;
  std::vector<std::int32_t> layer_by_parameter_;  // -1: not a THOR layer
  std::vector<const Tensor*> grads_;              // the weight gradient of each layer, in order
  std::unique_ptr<KroneckerEngine> engine_;
  bool has_inverses_ = false;
  bool refresh_due_ = true;
  bool collecting_ = false;
  profiler::NameId collect_name_, factors_name_, inverse_name_, allreduce_name_, precondition_name_;
};

}  // namespace parity::trainer
