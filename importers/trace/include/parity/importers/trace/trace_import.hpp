// Foreign traces as Parity traces: a profiler's output that users already
// have (the PyTorch profiler's Chrome-trace JSON, Kineto's and the legacy
// autograd profiler's, plain or .gz; Nsight Systems SQLite exports) converted into an ordinary
// trace database, which every analysis, the exporter and the viewer then read. docs/import.md says
// what each format gives and what it cannot.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parity::importers::trace {

enum class TraceFormat {
  kParity,
  kChromeJson,
  kMindSporeProfiler,
  kAscendProfilerOutput,
  kNsysSqlite
};

std::string_view format_name(TraceFormat format);

// What a file is, judged by its first bytes (a folder: by the MindSpore
// profiler files or the ASCEND_PROFILER_OUTPUT folder in it; SQLite: by
// whether its tables are an nsys export's);
// nullopt for one that cannot be read or is none of them.
std::optional<TraceFormat> sniff_trace_format(const std::filesystem::path& path);
// The same, throwing parity::Error (naming the file and the formats that are
// read) where sniff_trace_format gives nullopt.
TraceFormat detect_trace_format(const std::filesystem::path& path);

struct ImportOptions {
  // Bytes of the input read so far and its size, during the import.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  // The rank to read from a MindSpore profiler or Ascend output folder holding
  // several; the lowest if unset.
  std::optional<std::int64_t> rank;
};

struct ImportSummary {
  std::string source;  // what wrote the file: "PyTorch profiler (Kineto)", ...
  std::uint64_t events = 0;
  std::map<std::string, std::uint64_t> imported;  // what became rows: "CPU ops" -> n
  // Events not imported, by kind ("ph=b cat=foo", "GPU user annotations"):
  // counted and reported, never dropped silently.
  std::map<std::string, std::uint64_t> not_imported;
  std::vector<std::string> notes;  // what the source could not provide
  std::string text() const;        // what `parity import` prints
};

// Converts `in` into a new trace database `out` (which must not exist).
// Throws parity::Error naming the file, the byte offset and a hint for input
// that is not a readable trace. `out` is written without a journal, so give
// a scratch name and rename it into place once this returns (both callers
// do): a failed import removes it, but a killed one leaves garbage there.
ImportSummary import_trace(const std::filesystem::path& in, const std::filesystem::path& out,
                           const ImportOptions& options = {});

// The Parity trace to read for `path`: the file itself when it is one (or
// when it is no trace at all, or missing, for the trace reader to say what is
// wrong with it, as it always has); otherwise its conversion, kept beside it as `<file>.parity.db`
// (a MindSpore profiler folder: `<folder>.parity.db`) and made again only when the file (the
// folder's profiler files) changes (its size or time) or the importer does.
std::filesystem::path readable_trace(const std::filesystem::path& path,
                                     const ImportOptions& options = {});

}  // namespace parity::importers::trace
