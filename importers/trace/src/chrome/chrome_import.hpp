// Chrome trace-event JSON into a TraceAssembly: the PyTorch profiler's
// export_chrome_trace in both its forms (Kineto's object with categories,
// flows and GPU activity; the legacy autograd profiler's bare array of CPU
// ranges), and any other writer of the format as far as it follows it.
#pragma once

#include <filesystem>

#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// Reads `in` whole into `assembly`, filling `summary`; throws parity::Error
// for input that is not such a document.
void read_chrome_trace(const std::filesystem::path& in, const ImportOptions& options,
                       TraceAssembly& assembly, ImportSummary& summary);

}  // namespace parity::importers::trace
