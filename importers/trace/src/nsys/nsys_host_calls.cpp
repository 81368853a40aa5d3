#include "nsys/nsys_host_calls.hpp"

namespace parity::importers::trace {
namespace {

using profiler::ApiKind;

// ENUM_NSYS_EVENT_CLASS values of CUPTI_ACTIVITY_KIND_RUNTIME and OSRT_API rows.
constexpr std::int64_t kCudaRuntime = 0, kCudaDriver = 1, kOsRuntime = 27, kCudaBacktrace = 67;

// Runtime or driver: from eventClass, or, in exports without it, from the
// name (the runtime's functions are cuda*, the driver's cu*).
std::optional<ApiKind> api_kind(std::optional<std::int64_t> event_class, std::string_view name) {
  if (!event_class) return name.starts_with("cuda") ? ApiKind::kRuntime : ApiKind::kDriver;
  if (*event_class == kCudaRuntime) return ApiKind::kRuntime;
  if (*event_class == kCudaDriver) return ApiKind::kDriver;
  return std::nullopt;
}

std::string class_name(const std::map<std::int64_t, std::string>& labels, std::int64_t id) {
  const auto it = labels.find(id);
  return "event class " + std::to_string(id) +
         (it != labels.end() && !it->second.empty() ? " (" + it->second + ")" : "");
}

}  // namespace

std::string_view without_api_version(std::string_view name) {
  const std::size_t suffix = name.rfind("_v");
  if (suffix == std::string_view::npos || suffix + 2 == name.size()) return name;
  for (std::size_t i = suffix + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, suffix);
}

void read_nsys_cuda_api(NsysSource& source, NsysProcesses& processes) {
  auto table = source.table("CUPTI_ACTIVITY_KIND_RUNTIME");
  if (!table) return;
  const auto labels = source.enum_labels("ENUM_NSYS_EVENT_CLASS");
  const int start = table->required({"start"});
  const int end = table->required({"end"});
  const int name = table->required({"nameId"});
  const int thread = table->column({"globalTid"});
  const int correlation = table->column({"correlationId"});
  const int event_class = table->column({"eventClass"});
  table->for_each("start", [&](const NsysRow& row) {
    const auto kind_of_row = row.integer(event_class);
    if (kind_of_row == kCudaBacktrace)
      return source.skip("CUDA backtraces (event class 67: the stacks of calls, not calls)");
    const std::string text = source.text(row.integer(name));
    const auto kind = api_kind(kind_of_row, text);
    if (!kind) return source.skip("CUDA API rows of " + class_name(labels, *kind_of_row));
    const auto begin = row.integer_or(start, 0);
    const auto duration = nsys_duration(begin, row.integer(end));
    if (!duration) return source.skip("CUDA API calls without an end, or ending before they start");
    const std::int64_t global_tid = row.integer_or(thread, 0);
    profiler::ApiCallRow call;
    call.track = processes.thread(global_tid);
    call.start_ns = begin;
    call.dur_ns = *duration;
    call.kind = *kind;
    call.name = source.assembly().name(without_api_version(text));
    call.correlation_id = processes.correlation(row.integer(correlation), global_tid);
    source.assembly().add_api_call(call);
    source.count(*kind == ApiKind::kRuntime ? "CUDA runtime calls" : "CUDA driver calls");
  });
}

void read_nsys_os_runtime(NsysSource& source, NsysProcesses& processes) {
  auto table = source.table("OSRT_API");
  if (!table) return;
  const auto labels = source.enum_labels("ENUM_NSYS_EVENT_CLASS");
  const int start = table->required({"start"});
  const int end = table->required({"end"});
  const int name = table->required({"nameId"});
  const int thread = table->column({"globalTid"});
  const int event_class = table->column({"eventClass"});
  table->for_each("start", [&](const NsysRow& row) {
    // Rows of other classes are nsys's own zero-length markers of when OS
    // runtime tracing started and finished (31, 32), on thread id 0: read as
    // calls, the first would become the trace's time 0.
    if (const auto kind = row.integer(event_class); kind && *kind != kOsRuntime)
      return source.skip("OSRT_API rows of " + class_name(labels, *kind) +
                         ": nsys's markers, not calls");
    const auto begin = row.integer_or(start, 0);
    const auto duration = nsys_duration(begin, row.integer(end));
    if (!duration)
      return source.skip("OS runtime calls without an end, or ending before they start");
    source.assembly().add_range(processes.thread(row.integer_or(thread, 0)), begin, *duration,
                                source.name(row.integer(name)), Category::kApi);
    source.count("OS runtime calls (OSRT_API, as api ranges)");
  });
}

}  // namespace parity::importers::trace
