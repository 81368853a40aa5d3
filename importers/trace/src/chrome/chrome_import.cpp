#include "chrome/chrome_import.hpp"

#include <simdjson.h>

#include <charconv>
#include <map>
#include <vector>

#include "chrome/chrome_collectives.hpp"
#include "chrome/chrome_event.hpp"
#include "chrome/chrome_lanes.hpp"
#include "chrome/chrome_phases.hpp"
#include "json/chrome_json_stream.hpp"
#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

using profiler::ApiKind;
using profiler::GpuActivityKind;

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::string_view kModulePrefix = "nn.Module: ";

std::optional<std::int64_t> step_number(std::string_view name) {
  if (!name.starts_with(kStepPrefix)) return std::nullopt;
  name.remove_prefix(kStepPrefix.size());
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return number;
}

// The parts of a step PyTorch marks itself: the DataLoader's next batch and
// the optimizer's step and zero_grad (record_function ranges, in Kineto's
// user_annotation category). The report files them under data wait and
// optimizer (phase_part in the analyzer).
bool is_phase_marker(std::string_view name) {
  return name.starts_with("enumerate(DataLoader)#") || name.starts_with("Optimizer.step#") ||
         name.starts_with("Optimizer.zero_grad#");
}

// The category of a host range, from its "cat" and, where the writer gives
// none (the legacy autograd profiler), from its name: operators are
// namespaced (aten::, c10d::, autograd::...) or autograd nodes, which Kineto
// files as cpu_op too; record_function labels are neither.
Category host_category(std::string_view cat, std::string_view name) {
  if (step_number(name)) return Category::kStep;
  if (is_phase_marker(name)) return Category::kPhase;
  if (cat == "cpu_op") return Category::kOp;
  if (cat == "python_function" && name.starts_with(kModulePrefix)) return Category::kLayer;
  if (cat.empty() && (name.find("::") != std::string_view::npos || is_backward_op(name)))
    return Category::kOp;
  return Category::kUser;
}

// CUPTI's memcpy kinds, from Kineto's "Memcpy HtoD (Pageable -> Device)".
std::optional<std::int64_t> copy_kind(std::string_view name) {
  static const std::pair<std::string_view, std::int64_t> kinds[] = {
      {"HtoD", 1}, {"DtoH", 2}, {"HtoA", 3}, {"AtoH", 4}, {"AtoA", 5},
      {"AtoD", 6}, {"DtoA", 7}, {"DtoD", 8}, {"HtoH", 9}, {"PtoP", 10}};
  for (const auto& [text, kind] : kinds)
    if (name.find(text) != std::string_view::npos) return kind;
  return std::nullopt;
}

class ChromeImporter {
 public:
  ChromeImporter(TraceAssembly& assembly, ImportSummary& summary, std::string where)
      : assembly_(assembly), summary_(summary), lanes_(assembly), where_(std::move(where)) {}

  void member(std::string_view key, const RawJsonValue& value);
  void event(const ChromeEvent& event, std::uint64_t offset);
  void finish(const JsonStreamResult& stream);

 private:
  void count(const std::string& what) { ++summary_.imported[what]; }
  void skip(const std::string& what) { ++summary_.not_imported[what]; }
  void complete(const ChromeEvent& event);
  void begin_end(const ChromeEvent& event);
  void instant(const ChromeEvent& event);
  void host_range(const ChromeEvent& event, std::int64_t start, std::int64_t dur);
  void gpu_activity(const ChromeEvent& event, GpuActivityKind kind);
  std::int64_t require_ts(const ChromeEvent& event);

  struct OpenRange {
    std::int64_t start;
    std::string name, category;
  };

  TraceAssembly& assembly_;
  ImportSummary& summary_;
  ChromeLanes lanes_;
  std::string where_;
  std::uint64_t offset_ = 0;                        // of the event being read, for errors
  std::map<TrackId, std::vector<OpenRange>> open_;  // 'B' events awaiting their 'E'
  std::optional<std::int64_t> base_unix_ns_;        // Kineto's baseTimeNanoseconds
  std::int64_t rank_ = 0;                           // distributedInfo's
  ChromeCollectives collectives_;
  bool has_categories_ = false, has_schema_version_ = false;
};

void ChromeImporter::member(std::string_view key, const RawJsonValue& value) {
  // Top-level members are few and small: the DOM parser checks each whole.
  simdjson::dom::parser parser;
  simdjson::dom::element document;
  if (parser.parse(value.text.data(), value.text.size(), false).get(document) != simdjson::SUCCESS)
    throw Error("the top-level member \"" + std::string(key) + "\" at byte " +
                    std::to_string(value.offset) + " is not valid JSON",
                where_, "the file may be corrupt or cut short");
  std::int64_t number = 0;
  std::string_view text;
  if (key == "schemaVersion") {
    has_schema_version_ = true;
  } else if (key == "baseTimeNanoseconds") {
    if (document.get_int64().get(number) == simdjson::SUCCESS) base_unix_ns_ = number;
  } else if (key == "distributedInfo") {
    if (document["rank"].get_int64().get(number) == simdjson::SUCCESS) {
      assembly_.set_meta("rank", std::to_string(number));
      rank_ = number;
    }
    if (document["world_size"].get_int64().get(number) == simdjson::SUCCESS)
      assembly_.set_meta("world_size", std::to_string(number));
    if (document["backend"].get_string().get(text) == simdjson::SUCCESS)
      assembly_.set_meta("import.distributed_backend", std::string(text));
  }
}

std::int64_t ChromeImporter::require_ts(const ChromeEvent& event) {
  if (!event.ts_ns)
    throw Error("the '" + std::string(1, event.phase) + "' event at byte " +
                    std::to_string(offset_) + " has no \"ts\"",
                where_, "every event but metadata has a time stamp in microseconds");
  return *event.ts_ns;
}

void ChromeImporter::host_range(const ChromeEvent& event, std::int64_t start, std::int64_t dur) {
  if (collectives_.consider(event, start, dur)) count("collective ranges (gloo:, nccl:)");
  const Category category = host_category(event.category, event.name);
  assembly_.add_range(lanes_.host_thread(event), start, dur, assembly_.name(event.name), category,
                      category == Category::kStep ? step_number(event.name) : std::nullopt);
  switch (category) {
    case Category::kStep:
      return count("steps (ProfilerStep#N)");
    case Category::kOp:
      return count("CPU ops");
    case Category::kLayer:
      return count("module ranges (layers)");
    case Category::kPhase:
      return count("phases (DataLoader, Optimizer.step, Optimizer.zero_grad)");
    default:
      return count(event.category.empty() || event.category == "user_annotation" ||
                           event.category == "python_function"
                       ? "user ranges (record_function, Python)"
                       : "other ranges (cat " + std::string(event.category) + ")");
  }
}

void ChromeImporter::gpu_activity(const ChromeEvent& event, GpuActivityKind kind) {
  if (kind == GpuActivityKind::kKernel &&
      collectives_.consider(event, require_ts(event), event.dur_ns.value_or(0)))
    count("NCCL kernels");
  profiler::GpuActivityRow row;
  const std::int64_t device = event.device.value_or(event.pid.is_text ? 0 : event.pid.number);
  const std::int64_t stream = event.stream.value_or(event.tid.is_text ? 0 : event.tid.number);
  row.track = lanes_.gpu_stream(device, stream);
  row.start_ns = require_ts(event);
  row.dur_ns = event.dur_ns.value_or(0);
  row.kind = kind;
  row.name = assembly_.name(event.name);
  row.correlation_id = event.correlation;
  if (kind == GpuActivityKind::kKernel && event.grid && event.block) {
    profiler::LaunchConfig launch;
    launch.grid = *event.grid;
    launch.block = *event.block;
    launch.shared_bytes = static_cast<std::uint32_t>(event.shared_memory.value_or(0));
    launch.registers = static_cast<std::uint32_t>(event.registers.value_or(0));
    row.launch = launch;
  }
  if (kind == GpuActivityKind::kMemcpy || kind == GpuActivityKind::kMemset) row.bytes = event.bytes;
  if (kind == GpuActivityKind::kMemcpy) row.copy_kind = copy_kind(event.name);
  assembly_.add_gpu_activity(row);
}

void ChromeImporter::complete(const ChromeEvent& event) {
  const std::string_view cat = event.category;
  if (cat == "kernel") return gpu_activity(event, GpuActivityKind::kKernel), count("kernels");
  if (cat == "gpu_memcpy") return gpu_activity(event, GpuActivityKind::kMemcpy), count("memcpy");
  if (cat == "gpu_memset") return gpu_activity(event, GpuActivityKind::kMemset), count("memset");
  if (cat == "cuda_sync")
    return gpu_activity(event, GpuActivityKind::kSync), count("GPU synchronisations");
  if (cat == "cuda_runtime" || cat == "cuda_driver") {
    profiler::ApiCallRow row;
    row.track = lanes_.host_thread(event);
    row.start_ns = require_ts(event);
    row.dur_ns = event.dur_ns.value_or(0);
    row.kind = cat == "cuda_runtime" ? ApiKind::kRuntime : ApiKind::kDriver;
    row.name = assembly_.name(event.name);
    row.correlation_id = event.correlation;
    assembly_.add_api_call(row);
    return count("CUDA API calls");
  }
  if (cat == "gpu_user_annotation")
    return skip("GPU user annotations (the same record_function ranges, seen on a stream)");
  if (cat == "Trace") return skip("the profiler's own span (\"PyTorch Profiler (0)\")");
  host_range(event, require_ts(event), event.dur_ns.value_or(0));
}

void ChromeImporter::begin_end(const ChromeEvent& event) {
  const TrackId track = lanes_.host_thread(event);
  std::vector<OpenRange>& stack = open_[track];
  if (event.phase == 'B') {
    stack.push_back({require_ts(event), std::string(event.name), std::string(event.category)});
    return;
  }
  if (stack.empty()) return skip("'E' events with no 'B' open on their thread");
  const OpenRange begun = std::move(stack.back());
  stack.pop_back();
  ChromeEvent whole = event;
  whole.name = begun.name;
  whole.category = begun.category;
  host_range(whole, begun.start, std::max<std::int64_t>(0, require_ts(event) - begun.start));
}

void ChromeImporter::instant(const ChromeEvent& event) {
  const std::int64_t ts = require_ts(event);
  if (event.name == "[memory]") {
    if (!event.total_allocated) return skip("[memory] events without \"Total Allocated\"");
    const bool cuda = event.device_type.value_or(0) == 1;
    const std::string device = cuda ? "cuda:" + std::to_string(event.device_id.value_or(0)) : "CPU";
    assembly_.add_counter(lanes_.counter("memory allocated (" + device + ")"), ts,
                          *event.total_allocated);
    return count("memory samples ([memory])");
  }
  assembly_.add_instant(lanes_.host_thread(event), ts, assembly_.name(event.name), Category::kUser);
  count("instants");
}

void ChromeImporter::event(const ChromeEvent& event, std::uint64_t offset) {
  offset_ = offset;
  ++summary_.events;
  if (!event.category.empty()) has_categories_ = true;
  switch (event.phase) {
    case 'X':
      return complete(event);
    case 'B':
    case 'E':
      return begin_end(event);
    case 'i':
    case 'I':
      return instant(event);
    case 'C': {
      const std::int64_t ts = require_ts(event);
      for (const auto& [key, value] : event.counter_values)
        assembly_.add_counter(lanes_.counter(std::string(event.name) +
                                             (key == "value" ? "" : "." + std::string(key))),
                              ts, value);
      return count("counter samples");
    }
    case 'M':
      if (lanes_.take_label(event)) return count("process and thread names");
      return skip("metadata other than process and thread names (sort order, labels)");
    case 's':
    case 't':
    case 'f':
      return skip("flow arrows (the correlation ids in args link launches and kernels)");
    default:
      return skip("events of ph '" + std::string(1, event.phase) + "' (not read by Parity yet)");
  }
}

void ChromeImporter::finish(const JsonStreamResult& stream) {
  for (const auto& [track, stack] : open_)
    if (!stack.empty()) summary_.not_imported["'B' events never ended"] += stack.size();
  lanes_.label_tracks();
  collectives_.add_to(assembly_, rank_);
  if (stream.object_format && (has_schema_version_ || has_categories_))
    summary_.source = "PyTorch profiler (Kineto)";
  else if (!stream.object_format && !has_categories_)
    summary_.source = "PyTorch profiler (legacy autograd profiler)";
  else
    summary_.source = "Chrome trace-event JSON";
  if (!has_categories_)
    summary_.notes.push_back(
        "the events have no categories: operators were told from record_function ranges by "
        "their names (namespaced like aten::mm, or autograd nodes like MmBackward0)");
  if (!summary_.imported.count("steps (ProfilerStep#N)"))
    summary_.notes.push_back(
        "no ProfilerStep#N ranges, so no steps: profile with a schedule and call prof.step() "
        "once per iteration");
  if (!summary_.imported.count("module ranges (layers)"))
    summary_.notes.push_back(
        "no module ranges (nn.Module: ...), so no layers: profile with with_stack=True");
  if (!summary_.imported.count("kernels"))
    summary_.notes.push_back("no GPU activity: a CPU-only profile");
  if (collectives_.sizes_missing())
    summary_.notes.push_back(
        "collectives without their sizes (bytes, bandwidth): profile with record_shapes=True "
        "(NCCL kernels never carry them)");
  if (const std::size_t phased = add_training_phases(assembly_)) {
    summary_.imported["steps given forward and backward phases (derived)"] = phased;
    summary_.notes.push_back(
        "forward and backward are derived, not marked: backward spans the autograd engine's "
        "work in each step, forward the step's operators before it after the data wait");
    summary_.notes.push_back(
        "no gradient-ready times: the PyTorch profiler does not record when each gradient is "
        "ready");
  } else {
    summary_.notes.push_back(
        "no forward and backward phases and no gradient-ready times: the PyTorch profiler marks "
        "only the DataLoader's batches and the optimizer, and this trace shows no autograd work "
        "inside a step");
  }
  if (stream.unclosed_array)
    summary_.notes.push_back("the event array was not closed (the format allows it)");
  if (const auto earliest = assembly_.earliest_ns()) {
    // Kineto's times are Unix-epoch microseconds, or offsets from baseTimeNanoseconds.
    constexpr std::int64_t kYear2001Ns = 978307200LL * 1000000000LL;
    if (base_unix_ns_)
      assembly_.set_meta("clock_origin_unix_ns", std::to_string(*base_unix_ns_ + *earliest));
    else if (*earliest > kYear2001Ns)
      assembly_.set_meta("clock_origin_unix_ns", std::to_string(*earliest));
  }
}

}  // namespace

void read_chrome_trace(const std::filesystem::path& in, const ImportOptions& options,
                       TraceAssembly& assembly, ImportSummary& summary) {
  ChromeImporter importer(assembly, summary, in.string());
  ChromeEventParser parser;
  const std::uint64_t total = std::filesystem::file_size(in);
  JsonStreamCallbacks callbacks;
  callbacks.on_event = [&](const RawJsonValue& value) {
    importer.event(parser.parse(value, in.string()), value.offset);
  };
  callbacks.on_member = [&](std::string_view key, const RawJsonValue& value) {
    importer.member(key, value);
  };
  if (options.progress)
    callbacks.on_progress = [&](std::uint64_t done) { options.progress(done, total); };
  importer.finish(read_chrome_json(in, callbacks));
}

}  // namespace parity::importers::trace
