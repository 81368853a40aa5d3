#include "ascend/ascend_trace_view.hpp"

#include <charconv>
#include <map>
#include <optional>
#include <string>

#include "ascend/ascend_hccl.hpp"
#include "chrome/chrome_event.hpp"
#include "json/chrome_json_stream.hpp"
#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

using profiler::GpuActivityKind;
using profiler::TrackKind;

enum class ProcessKind { kHost, kHardware, kHccl, kCann, kOverlap };

ProcessKind kind_of_process(std::string_view process) {
  if (process == "Ascend Hardware") return ProcessKind::kHardware;
  if (process == "HCCL") return ProcessKind::kHccl;
  if (process == "CANN") return ProcessKind::kCann;
  if (process == "Overlap Analysis") return ProcessKind::kOverlap;
  return ProcessKind::kHost;
}

// A hardware task's kind by its Task Type (and name, for copies CANN names
// MEMCPY_ASYNC); nullopt for the profiler's own markers.
std::optional<GpuActivityKind> task_kind(std::string_view task_type, std::string_view name) {
  if (task_type == "PLACE_HOLDER_SQE") return std::nullopt;  // PROFILING_ENABLE/DISABLE
  if (task_type.find("DMA") != std::string_view::npos || name == "MEMCPY_ASYNC")
    return GpuActivityKind::kMemcpy;
  if (task_type.find("EVENT") != std::string_view::npos || task_type == "Notify Wait" ||
      task_type == "Write Value")
    return GpuActivityKind::kSync;
  return GpuActivityKind::kKernel;
}

// The step of "ProfilerStep#50".
std::optional<std::int64_t> profiler_step(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  std::int64_t step = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), step);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return step;
}

struct LaneNames {
  std::map<std::int64_t, std::string> processes;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> threads;
};

class TraceViewImporter {
 public:
  TraceViewImporter(LaneNames names, std::int64_t rank, TraceAssembly& assembly,
                    ImportSummary& summary)
      : names_(std::move(names)), rank_(rank), assembly_(assembly), summary_(summary) {}

  void event(const ChromeEvent& event, std::uint64_t offset, const std::string& where);
  TraceViewContent finish();

 private:
  void count(const std::string& what) { ++summary_.imported[what]; }
  void skip(const std::string& what) { ++summary_.not_imported[what]; }
  std::string process(std::int64_t pid) const;
  std::string thread(std::int64_t pid, std::int64_t tid) const;
  TrackId track(std::int64_t pid, std::int64_t tid, TrackKind kind, bool device);
  void complete(const ChromeEvent& event, std::int64_t start, std::int64_t dur);
  void host(const ChromeEvent& event, std::int64_t start, std::int64_t dur);
  void hardware(const ChromeEvent& event, std::int64_t start, std::int64_t dur);
  void hccl(const ChromeEvent& event, std::int64_t start, std::int64_t dur);

  LaneNames names_;
  std::int64_t rank_;
  TraceAssembly& assembly_;
  ImportSummary& summary_;
  struct Lane {
    TrackId track;
    bool device;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, Lane> lanes_;
  TraceViewContent content_;
};

std::string TraceViewImporter::process(std::int64_t pid) const {
  const auto it = names_.processes.find(pid);
  return it == names_.processes.end() ? "pid " + std::to_string(pid) : it->second;
}

std::string TraceViewImporter::thread(std::int64_t pid, std::int64_t tid) const {
  const auto it = names_.threads.find({pid, tid});
  return it == names_.threads.end() ? "tid " + std::to_string(tid) : it->second;
}

TrackId TraceViewImporter::track(std::int64_t pid, std::int64_t tid, TrackKind kind, bool device) {
  const auto [it, added] = lanes_.try_emplace({pid, tid}, Lane{0, device});
  if (added)
    it->second.track =
        assembly_.track("ascend " + std::to_string(pid) + "/" + std::to_string(tid), kind);
  return it->second.track;
}

void TraceViewImporter::host(const ChromeEvent& event, std::int64_t start, std::int64_t dur) {
  const TrackId lane = track(event.pid.number, event.tid.number, TrackKind::kHostThread, false);
  if (const auto step = profiler_step(event.name)) {
    assembly_.add_range(lane, start, dur, assembly_.name("step " + std::to_string(*step)),
                        Category::kStep, step);
    ++content_.steps;
    return count("steps (ProfilerStep#<n>)");
  }
  // torch_npu marks operators cpu_op; the other categories (python_function,
  // enqueue, dequeue...) are the Python stack and the task queue.
  const bool op = event.category.empty() || event.category == "cpu_op";
  assembly_.add_range(lane, start, dur, assembly_.name(event.name),
                      op ? Category::kOp : Category::kUser);
  count(op ? "host ops" : "host ranges other than ops (python_function, enqueue, ...)");
}

void TraceViewImporter::hardware(const ChromeEvent& event, std::int64_t start, std::int64_t dur) {
  const auto kind = task_kind(event.task_type, event.name);
  if (!kind) return skip("profiler markers on the device (PROFILING_ENABLE/DISABLE)");
  profiler::GpuActivityRow row;
  row.track = track(event.pid.number, event.tid.number, TrackKind::kGpuStream, true);
  row.start_ns = start;
  row.dur_ns = dur;
  row.kind = *kind;
  row.name = assembly_.name(event.name);
  assembly_.add_gpu_activity(row);
  if (*kind == GpuActivityKind::kKernel) {
    ++content_.kernels;
    return count("NPU kernels (Ascend Hardware)");
  }
  count(*kind == GpuActivityKind::kMemcpy ? "NPU copies (Ascend Hardware: SDMA, PCIe DMA)"
                                          : "NPU syncs (Ascend Hardware: events, notifies)");
}

void TraceViewImporter::hccl(const ChromeEvent& event, std::int64_t start, std::int64_t dur) {
  if (thread(event.pid.number, event.tid.number).find("Communication") == std::string::npos)
    return skip("HCCL plane tasks (a collective's transfers: Notify, Memcpy, Reduce_Inline)");
  const auto op = hccl_collective_op(event.name);
  if (!op) return skip("HCCL ops naming no collective Parity knows");
  profiler::CollectiveRow row;
  row.track = track(event.pid.number, event.tid.number, TrackKind::kCollective, false);
  row.start_ns = start;
  row.dur_ns = dur;
  row.op = *op;
  row.rank = rank_;
  row.dtype = std::string(event.data_type);
  const std::int64_t element = hccl_element_bytes(event.data_type);
  row.bytes = event.element_count.value_or(0) * element;
  assembly_.add_collective(std::move(row));
  count(element > 0 && event.element_count ? "collectives (HCCL, with their sizes)"
                                           : "collectives (HCCL, size unknown)");
}

void TraceViewImporter::complete(const ChromeEvent& event, std::int64_t start, std::int64_t dur) {
  switch (kind_of_process(process(event.pid.number))) {
    case ProcessKind::kHardware:
      return hardware(event, start, dur);
    case ProcessKind::kHccl:
      return hccl(event, start, dur);
    case ProcessKind::kCann:
      assembly_.add_range(track(event.pid.number, event.tid.number, TrackKind::kHostThread, false),
                          start, dur, assembly_.name(event.name), Category::kApi);
      return count("CANN API calls (AscendCL, runtime)");
    case ProcessKind::kOverlap:
      return skip("overlap analysis rows (derived from the kernels and collectives)");
    case ProcessKind::kHost:
      return host(event, start, dur);
  }
}

void TraceViewImporter::event(const ChromeEvent& event, std::uint64_t offset,
                              const std::string& where) {
  ++summary_.events;
  if (event.phase == 'M')
    return event.name == "process_name" || event.name == "thread_name"
               ? count("process and thread names")
               : skip("metadata other than process and thread names (sort order, labels)");
  if (event.phase == 'C') return skip("counter samples (" + process(event.pid.number) + ")");
  if (event.phase == 's' || event.phase == 't' || event.phase == 'f')
    return skip("flow arrows (host launches to device tasks)");
  if (event.phase != 'X') return skip("events of ph '" + std::string(1, event.phase) + "'");
  if (!event.ts_ns || event.pid.is_text || event.tid.is_text)
    throw Error("the 'X' event at byte " + std::to_string(offset) +
                    " has no \"ts\", or a pid or tid that is not a number",
                where, "CANN's trace_view.json gives every event a numeric pid and tid and a ts");
  complete(event, *event.ts_ns, event.dur_ns.value_or(0));
}

TraceViewContent TraceViewImporter::finish() {
  for (const auto& [key, lane] : lanes_) {
    const auto [pid, tid] = key;
    assembly_.describe_track(lane.track, process(pid) + " / " + thread(pid, tid), pid, tid,
                             lane.device ? std::optional(rank_) : std::nullopt,
                             lane.device ? std::optional(tid) : std::nullopt);
  }
  return content_;
}

// Reads every event of the file into `on_event`.
JsonStreamResult each_event(const std::filesystem::path& in, ChromeEventParser& parser,
                            const std::function<void(const ChromeEvent&, std::uint64_t)>& on_event,
                            std::function<void(std::uint64_t)> on_progress) {
  JsonStreamCallbacks callbacks;
  callbacks.on_event = [&](const RawJsonValue& value) {
    on_event(parser.parse(value, in.string()), value.offset);
  };
  callbacks.on_member = [](std::string_view, const RawJsonValue&) {};
  callbacks.on_progress = std::move(on_progress);
  return read_chrome_json(in, callbacks);
}

}  // namespace

TraceViewContent read_trace_view(const std::filesystem::path& in, const ImportOptions& options,
                                 std::int64_t rank, TraceAssembly& assembly,
                                 ImportSummary& summary) {
  ChromeEventParser parser;
  LaneNames names;
  const JsonStreamResult first =
      each_event(in, parser,
                 [&](const ChromeEvent& event, std::uint64_t) {
                   if (event.phase != 'M') return;
                   if (event.name == "process_name")
                     names.processes[event.pid.number] = event.label;
                   if (event.name == "thread_name")
                     names.threads[{event.pid.number, event.tid.number}] = event.label;
                 },
                 {});
  if (first.object_format)
    throw Error("trace_view.json is a JSON object, not CANN's bare array of events", in.string(),
                "is it the trace_view.json of an ASCEND_PROFILER_OUTPUT folder?");
  TraceViewImporter importer(std::move(names), rank, assembly, summary);
  const std::uint64_t total = std::filesystem::file_size(in);
  std::function<void(std::uint64_t)> progress;
  if (options.progress) progress = [&](std::uint64_t done) { options.progress(done, total); };
  each_event(
      in, parser,
      [&](const ChromeEvent& event, std::uint64_t offset) {
        importer.event(event, offset, in.string());
      },
      progress);
  return importer.finish();
}

}  // namespace parity::importers::trace
