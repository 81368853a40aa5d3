#include "parity/importers/trace/trace_import.hpp"

#include <array>
#include <fstream>

#include "ascend/ascend_import.hpp"
#include "chrome/chrome_import.hpp"
#include "mindspore/mindspore_import.hpp"
#include "mindspore/mindspore_timeline.hpp"
#include "nsys/nsys_import.hpp"
#include "parity/core/error.hpp"
#include "parity/core/version.hpp"
#include "parity/profiler/clock.hpp"
#include "trace_assembly.hpp"
#include "trace_source_stamp.hpp"

namespace parity::importers::trace {

std::string_view format_name(TraceFormat format) {
  switch (format) {
    case TraceFormat::kParity:
      return "Parity trace";
    case TraceFormat::kChromeJson:
      return "Chrome trace-event JSON";
    case TraceFormat::kMindSporeProfiler:
      return "MindSpore profiler output";
    case TraceFormat::kAscendProfilerOutput:
      return "Ascend profiler output (ASCEND_PROFILER_OUTPUT)";
    case TraceFormat::kNsysSqlite:
      return "Nsight Systems SQLite export";
  }
  return "unknown";
}

namespace {

// Enough of a JSON file to tell MindSpore's timeline by its first events.
constexpr std::size_t kHeadBytes = 4096;

// The first bytes of a file; empty for one that cannot be read.
std::string head_of(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return {};
  std::ifstream in(path, std::ios::binary);
  std::array<char, kHeadBytes> head{};
  in.read(head.data(), head.size());
  return std::string(head.data(), static_cast<std::size_t>(in.gcount()));
}

}  // namespace

std::optional<TraceFormat> sniff_trace_format(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    if (is_ascend_output_dir(path)) return TraceFormat::kAscendProfilerOutput;
    return is_mindspore_profile_dir(path) ? std::optional(TraceFormat::kMindSporeProfiler)
                                          : std::nullopt;
  }
  const std::string bytes = head_of(path);
  if (looks_like_mindspore_timeline(bytes)) return TraceFormat::kMindSporeProfiler;
  if (bytes.starts_with(std::string_view("SQLite format 3\0", 16)))
    return is_nsys_export(path) ? TraceFormat::kNsysSqlite : TraceFormat::kParity;
  if (bytes.starts_with("\x1f\x8b")) return TraceFormat::kChromeJson;  // gzip: a .json.gz
  for (const char c : bytes) {
    if (c == '{' || c == '[') return TraceFormat::kChromeJson;
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
  }
  return std::nullopt;
}

TraceFormat detect_trace_format(const std::filesystem::path& path) {
  if (const auto format = sniff_trace_format(path)) return *format;
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw Error("a folder without MindSpore profiler files", path.string(),
                "Parity reads a MindSpore profiler/ folder (step_trace_raw_<rank>_detail_time.csv, "
                "*_timeline_display_<rank>.json), or an Ascend profiler's <name>_ascend_ms / "
                "<name>_ascend_pt folder (ASCEND_PROFILER_OUTPUT/); other traces are single files");
  if (!std::filesystem::is_regular_file(path, error))
    throw Error("cannot open the trace: no such file", path.string(), "check the path");
  throw Error(std::filesystem::file_size(path, error) == 0 ? "the file is empty"
                                                           : "not a trace Parity reads",
              path.string(),
              "Parity reads its own trace databases, PyTorch profiler traces "
              "(export_chrome_trace .json or .json.gz), Nsight Systems SQLite exports, "
              "MindSpore profiler folders and Ascend ASCEND_PROFILER_OUTPUT folders");
}

std::string ImportSummary::text() const {
  std::string out = "read " + std::to_string(events) + " events of a " + source + "\n";
  for (const auto& [what, n] : imported) out += "  " + std::to_string(n) + " " + what + "\n";
  if (!not_imported.empty()) {
    out += "not imported:\n";
    for (const auto& [what, n] : not_imported) out += "  " + std::to_string(n) + " " + what + "\n";
  }
  if (!notes.empty()) {
    out += "what this source does not give:\n";
    for (const std::string& note : notes) out += "  " + note + "\n";
  }
  return out;
}

ImportSummary import_trace(const std::filesystem::path& in, const std::filesystem::path& out,
                           const ImportOptions& options) {
  const TraceFormat format = detect_trace_format(in);
  if (format == TraceFormat::kParity) refuse_sqlite_import(in);
  TraceAssembly assembly;
  // A Chrome trace lists its events about in time order, so the rows streamed
  // while it is read nearly always have the right origin already. The nsys
  // reader goes table by table, kernels before the NVTX ranges that start
  // earliest, so streaming would make it shift every row it streamed.
  if (format == TraceFormat::kChromeJson) assembly.stream_to(out);
  ImportSummary summary;
  if (format == TraceFormat::kMindSporeProfiler)
    read_mindspore_profile(in, options, assembly, summary);
  else if (format == TraceFormat::kAscendProfilerOutput)
    read_ascend_output(in, options, assembly, summary);
  else if (format == TraceFormat::kNsysSqlite)
    read_nsys_sqlite(in, options, assembly, summary);
  else
    read_chrome_trace(in, options, assembly, summary);
  assembly.set_meta("import.source", in.string());
  assembly.set_meta("import.source_format", std::string(format_name(format)));
  assembly.set_meta("import.source_kind", summary.source);
  assembly.set_meta("import.source_stamp", source_stamp(in));
  assembly.set_meta("import.summary", summary.text());
  std::string not_given;
  for (const std::string& note : summary.notes) not_given += note + "\n";
  assembly.set_meta("import.not_given", not_given);
  assembly.set_meta("clock", "the source's (" + summary.source + ")");
  assembly.set_meta("dropped_records", "0");
  assembly.set_meta("tool_version", kVersion);
  assembly.set_meta("created_at", profiler::utc_now_iso8601());
  if (assembly.empty())
    throw Error("the trace holds no events Parity reads", in.string(),
                "was the profiler running? a trace with no ranges has nothing to analyse");
  assembly.write(out);
  return summary;
}

}  // namespace parity::importers::trace
