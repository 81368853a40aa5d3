// trace_view.json of ASCEND_PROFILER_OUTPUT/: Chrome trace events in a bare
// array (ts as text in torch_npu's, "1736408883704643.212"), whose lanes are
// told apart by their process's name, given by "M" events that may come
// anywhere in the file (so it is read twice: names, then events):
//   Ascend Hardware  the device's tasks per stream: kernels (AI_CORE, MIX_AIV,
//                    DSA...), copies (SDMA, PCIe DMA) and syncs (event
//                    record/wait, Notify Wait, Write Value) -> gpu_activity
//   HCCL             "Group <n> Communication": the collectives, with their
//                    element count and type (-> bytes); "Plane <n>": their
//                    transfers, counted, not imported
//   CANN             AscendCL and runtime calls -> API ranges
//   Overlap Analysis derived from the others: counted, not imported
//   any other        the framework's host threads (torch_npu: "Python"): op
//                    ranges (cat cpu_op, or none), ProfilerStep#<n> as steps,
//                    the rest (python_function, enqueue...) user ranges
// Counter and flow events are counted, not imported.
#pragma once

#include <cstdint>
#include <filesystem>

#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

struct TraceViewContent {
  std::int64_t steps = 0;    // ProfilerStep#<n> ranges
  std::int64_t kernels = 0;  // compute kernels on the hardware lanes
};

// Throws parity::Error naming the file and the byte offset for input that is
// not such a document.
TraceViewContent read_trace_view(const std::filesystem::path& in, const ImportOptions& options,
                                 std::int64_t rank, TraceAssembly& assembly,
                                 ImportSummary& summary);

}  // namespace parity::importers::trace
