// What every rank of a synthetic trace shares: the network, its names, the
// kernels each op launches, what each op costs on the device, the gradient
// buckets, and the device's time scale. Built once from the seed.
#pragma once

#include <cstdint>
#include <vector>

#include "parity/analyzer/synth/synth.hpp"
#include "parity/profiler/trace_rows.hpp"
#include "synth_kernels.hpp"
#include "synth_model.hpp"
#include "synth_names.hpp"

namespace parity::analyzer::synth {

// The device's time scale; the ranks' numbers are drawn around these.
struct DeviceTiming {
  std::int64_t batch = 0;             // images per rank and step
  double forward_ns = 0;              // a step's forward compute
  double flop_per_byte = 0;           // compute over memory bandwidth, as convolutions achieve it
  double update_bytes_per_ns = 0;     // memory bandwidth of the optimizer's update
  double allreduce_bytes_per_ns = 0;  // bus bandwidth of an allreduce
  double load_batch_ns = 0;           // the data loader's mean time per batch
  std::int64_t setup_ns = 0;          // from trace start to the first step (model setup)
  std::int64_t iteration_gap_ns = 0;  // between one step's end and the next one's start
};

// A gradient bucket: parameters first_param..last_param (inclusive, forward
// order), reduced together once the last of them (first_param) is ready.
struct Bucket {
  int first_param = 0, last_param = 0;
  std::int64_t bytes = 0;
};

struct LayerNames {
  profiler::NameId module = 0, forward_op = 0, backward_op = 0;
};

// Names the timeline uses at every step.
struct NameIds {
  profiler::NameId step, data_wait, forward, backward, optimizer, reorder, load_batch, sgd_update,
      amp_unscale, launch_kernel, memcpy_async, stream_synchronize, memcpy_htod, grad_overflow;
};

struct SynthSetup {
  explicit SynthSetup(const SynthOptions& options);

  bool gpu = true;
  int world_size = 1;
  DeviceTiming timing;
  Model model;
  Names names;
  NameIds ids{};
  std::vector<LayerNames> layer_names;          // per model layer
  std::vector<double> forward_ns, backward_ns;  // per model layer, a normal step's
  std::vector<double> reorder_ns;               // per model layer, a layout conversion of its input
  std::vector<bool> reorder_forward, reorder_backward;  // per model layer: converts first
  std::vector<double> update_ns;                        // per parameter, the optimizer's update
  double unscale_ns = 0;                                // the loss scaler's pass over the gradients
  std::int64_t batch_bytes = 0;                         // the input batch copied to the GPU
  KernelPlans kernels;                                  // GPU only
  std::vector<Bucket> buckets;                          // in reduction (backward) order
  std::vector<int> bucket_of_param;
};

}  // namespace parity::analyzer::synth
