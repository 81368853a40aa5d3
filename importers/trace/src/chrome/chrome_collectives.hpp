// Collectives in a PyTorch profiler trace: the process group's own ranges
// ("gloo:all_reduce", "nccl:all_reduce"; with record_shapes, the tensor's
// shape and type) and NCCL's kernels ("ncclKernel_AllReduce_RING_LL_Sum_float",
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL"), which time the collective on
// the device. Where the trace has NCCL kernels they are the collectives (the
// host ranges only enqueue them); otherwise the host ranges are.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chrome/chrome_event.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// "all_reduce", "allreduce_", "AllReduce" -> kAllReduce, ...
std::optional<profiler::CollectiveOp> collective_op_of(std::string_view name);
// The collective an NCCL kernel runs, from its name in either of NCCL's
// namings ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)",
// "ncclKernel_AllReduce_RING_LL_Sum_float"); nullopt for other kernels and for
// NCCL's SendRecv and Generic kernels, which name no one collective.
std::optional<profiler::CollectiveOp> nccl_kernel_op(std::string_view kernel_name);
// Bytes of one element of a PyTorch type name ("float", "c10::Half", "long int"); 0 if unknown.
std::int64_t element_bytes(std::string_view type);

class ChromeCollectives {
 public:
  // Notes the event if it is a collective (it is imported as a range or a
  // kernel as well); returns whether it was one.
  bool consider(const ChromeEvent& event, std::int64_t start_ns, std::int64_t dur_ns);
  // Adds the collectives kept, on one lane per backend, to `assembly`.
  void add_to(TraceAssembly& assembly, std::int64_t rank) const;
  bool empty() const { return host_.empty() && device_.empty(); }
  // Whether any collective kept has no size (its shape was not recorded).
  bool sizes_missing() const;

 private:
  struct Found {
    std::int64_t start_ns, dur_ns;
    profiler::CollectiveOp op;
    std::int64_t bytes;
    std::string dtype, lane;
  };
  std::vector<Found> host_, device_;
};

}  // namespace parity::importers::trace
