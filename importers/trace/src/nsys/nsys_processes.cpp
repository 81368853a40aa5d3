#include "nsys/nsys_processes.hpp"

#include <set>

#include "nsys/nsys_global_id.hpp"

namespace parity::importers::trace {
namespace {

using profiler::TrackKind;

constexpr const char* kGpuTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                      "CUPTI_ACTIVITY_KIND_MEMSET",
                                      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"};

}  // namespace

NsysProcesses::NsysProcesses(NsysSource& source) : source_(source) {
  std::set<std::int64_t> gpu_processes;
  for (const char* name : kGpuTables)
    if (auto table = NsysTable::open(source_.db(), name))
      gpu_processes.merge(table->distinct_processes({"globalPid"}));
  std::int64_t next = 0;
  for (const std::int64_t process : gpu_processes) {
    ranks_[process] = next;
    correlation_spaces_[process] = next++;
  }
  if (auto calls = NsysTable::open(source_.db(), "CUPTI_ACTIVITY_KIND_RUNTIME"))
    for (const std::int64_t process : calls->distinct_processes({"globalTid"}))
      if (correlation_spaces_.emplace(process, next).second) ++next;
  read_names();
}

void NsysProcesses::read_names() {
  if (auto processes = source_.table("PROCESSES")) {
    const int process = processes->required({"globalPid"});
    const int name = processes->column({"name"});
    processes->for_each({}, [&](const NsysRow& row) {
      if (const auto text = row.text(name); text && !text->empty())
        process_names_[nsys_process(row.integer_or(process, 0))] = *text;
    });
  }
  if (auto threads = source_.table("ThreadNames")) {
    const int thread = threads->required({"globalTid"});
    const int name = threads->required({"nameId"});
    threads->for_each({}, [&](const NsysRow& row) {
      thread_names_[row.integer_or(thread, 0)] = source_.text(row.integer(name));
    });
  }
}

std::optional<std::int64_t> NsysProcesses::rank(std::int64_t process) const {
  const auto it = ranks_.find(nsys_process(process));
  if (it == ranks_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::int64_t> NsysProcesses::correlation(std::optional<std::int64_t> id,
                                                       std::int64_t process) const {
  if (!id) return std::nullopt;
  const auto space = correlation_spaces_.find(nsys_process(process));
  // Unsigned, so that ids no real export has wrap rather than overflow.
  const auto offset =
      static_cast<std::uint64_t>(space != correlation_spaces_.end() ? space->second : 0) << 32;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(*id) + offset);
}

std::string NsysProcesses::process_name(std::int64_t process) const {
  std::string name = "process";
  if (const auto it = process_names_.find(process); it != process_names_.end())
    name = it->second;
  else if (const auto main = thread_names_.find(process | nsys_pid(process));
           main != thread_names_.end())
    name = main->second;  // the main thread's id is the process's
  return name + " [" + std::to_string(nsys_pid(process)) + "]";
}

std::string NsysProcesses::label(std::int64_t process) const {
  process = nsys_process(process);
  const auto number = rank(process);
  return (number && ranks_.size() > 1 ? "rank " + std::to_string(*number) + " " : "") +
         process_name(process);
}

std::string NsysProcesses::rank_list() const {
  std::string out;
  for (const auto& [process, number] : ranks_)
    out +=
        (out.empty() ? "rank " : "; rank ") + std::to_string(number) + ": " + process_name(process);
  return out;
}

TrackId NsysProcesses::thread(std::int64_t global_tid) {
  TraceAssembly& assembly = source_.assembly();
  const TrackId track =
      assembly.track("nsys thread " + std::to_string(global_tid), TrackKind::kHostThread);
  if (assembly.has_label(track)) return track;
  const auto name = thread_names_.find(global_tid);
  const std::string thread = name != thread_names_.end() && !name->second.empty()
                                 ? name->second
                                 : "thread " + std::to_string(nsys_tid(global_tid));
  assembly.describe_track(track, label(global_tid) + " / " + thread, nsys_pid(global_tid),
                          nsys_tid(global_tid));
  return track;
}

TrackId NsysProcesses::stream(std::int64_t process, std::int64_t device, std::int64_t stream) {
  process = nsys_process(process);
  TraceAssembly& assembly = source_.assembly();
  const TrackId track = assembly.track("nsys stream " + std::to_string(process) + " " +
                                           std::to_string(device) + " " + std::to_string(stream),
                                       TrackKind::kGpuStream);
  if (assembly.has_label(track)) return track;
  std::string name = "GPU " + std::to_string(device) + " stream " + std::to_string(stream);
  if (ranks_.size() > 1) name += " (" + label(process) + ")";
  assembly.describe_track(track, name, nsys_pid(process), {}, device, stream);
  return track;
}

TrackId NsysProcesses::lane(std::int64_t process, const std::string& what, TrackKind kind) {
  process = nsys_process(process);
  TraceAssembly& assembly = source_.assembly();
  const TrackId track = assembly.track("nsys " + std::to_string(process) + " " + what, kind);
  if (!assembly.has_label(track))
    assembly.describe_track(track, label(process) + " / " + what, nsys_pid(process), {});
  return track;
}

}  // namespace parity::importers::trace
