#include "mindspore/mindspore_timeline.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <regex>

#include "chrome/chrome_event.hpp"
#include "json/chrome_json_stream.hpp"
#include "mindspore/mindspore_collective.hpp"
#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

using profiler::TrackKind;

// Lanes of base_timeline_generator.py.
constexpr std::int64_t kStepsTid = 100000, kScopeTid = 100001;
constexpr std::int64_t kAiCpuPid = 9000, kCommunicationPid = 10000, kHostCpuPid = 11000,
                       kOverlapPid = 12000, kActivityPid = 13000;

// The label of a lane's process where the timeline has no process_name
// event (MindSpore 0.5-1.0 wrote none).
std::string default_process_label(std::int64_t pid) {
  switch (pid) {
    case kAiCpuPid:
      return "AI CPU";
    case kCommunicationPid:
      return "Communication";
    case kHostCpuPid:
      return "Host CPU";
    default:
      return "pid " + std::to_string(pid);
  }
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A lane's number: MindSpore 1.0 wrote tids as text ("519"). nullopt for a
// lane named in words ("Stream #3", the GPU activity lanes).
std::optional<std::int64_t> lane_number(const LaneId& lane) {
  return lane.is_text ? whole_number(lane.text) : std::optional(lane.number);
}

// The instance number of "Conv2D-op12".
std::optional<std::int64_t> op_instance(std::string_view name) {
  const std::size_t at = name.rfind("-op");
  return at == std::string_view::npos ? std::nullopt : whole_number(name.substr(at + 3));
}

class TimelineImporter {
 public:
  TimelineImporter(TraceAssembly& assembly, ImportSummary& summary, const TimelineOptions& options,
                   std::string where)
      : assembly_(assembly), summary_(summary), options_(options), where_(std::move(where)) {}

  void event(const ChromeEvent& event, std::uint64_t offset);
  TimelineOps finish();

 private:
  void count(const std::string& what) { ++summary_.imported[what]; }
  void skip(const std::string& what) { ++summary_.not_imported[what]; }
  void complete(const ChromeEvent& event, std::int64_t start, std::int64_t dur);
  void op(const ChromeEvent& event, std::int64_t tid, std::int64_t start, std::int64_t dur);
  void communication(const ChromeEvent& event, std::int64_t tid, std::int64_t start,
                     std::int64_t dur);
  void metadata(const ChromeEvent& event);
  TrackId lane(std::int64_t pid, std::int64_t tid, TrackKind kind);

  TraceAssembly& assembly_;
  ImportSummary& summary_;
  TimelineOptions options_;
  std::string where_;
  std::map<std::pair<std::int64_t, std::int64_t>, TrackId> lanes_;
  std::map<std::int64_t, std::string> process_names_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread_names_;
  TimelineOps ops_;
  std::int64_t first_op_stream_ = 0;
};

TrackId TimelineImporter::lane(std::int64_t pid, std::int64_t tid, TrackKind kind) {
  const auto [it, added] = lanes_.try_emplace({pid, tid}, 0);
  if (added)
    it->second =
        assembly_.track("mindspore " + std::to_string(pid) + "/" + std::to_string(tid), kind);
  return it->second;
}

void TimelineImporter::op(const ChromeEvent& event, std::int64_t tid, std::int64_t start,
                          std::int64_t dur) {
  const std::int64_t pid = event.pid.number;
  const bool host = pid == kHostCpuPid;
  const std::string_view type = op_type(event.name);
  assembly_.add_range(lane(pid, tid, host ? TrackKind::kHostThread : TrackKind::kGpuStream), start,
                      dur, assembly_.name(type), Category::kOp, op_instance(event.name));
  ++ops_.count_by_type[std::string(type)];
  if (host) return count("host CPU ops");
  const auto& anchor = options_.anchor;
  if (anchor && event.name == anchor->op && tid == anchor->stream)
    ops_.anchor_ns = std::min(start, ops_.anchor_ns.value_or(start));
  ops_.earliest_op_ns = std::min(start, ops_.earliest_op_ns.value_or(start));
  ops_.last_end_ns = std::max(ops_.last_end_ns, start + dur);
  if (pid == kAiCpuPid) return count("AI CPU ops (pid 9000)");
  if (ops_.first_op.empty()) {
    ops_.first_op = event.name;
    first_op_stream_ = tid;
  }
  if (event.name == ops_.first_op && tid == first_op_stream_) ops_.first_op_starts.push_back(start);
  ops_.op_starts.push_back(start);
  // MindSpore scopes the backward pass's ops "Gradients/..." (args.fullname,
  // 0.5-1.x Ascend); without it, the op's type tells.
  const bool gradient =
      event.full_name.empty() ? is_gradient_op(type) : event.full_name.starts_with("Gradients/");
  if (gradient) ops_.gradient_starts.push_back(start);
  count("device ops");
  // Without a step trace the timeline's own collective ops are the collectives.
  const auto collective = collective_op_of(type);
  if (collective && options_.steps_from_timeline) {
    add_mindspore_collective(assembly_, *collective, tid, start, dur, options_.rank);
    count("collectives (communication ops)");
  }
}

// A row of the Communication lane (pid 10000): a reduce of the step trace
// ("stream_520_parallel_0" before MindSpore 0.7) or an HCCL op.
void TimelineImporter::communication(const ChromeEvent& event, std::int64_t tid, std::int64_t start,
                                     std::int64_t dur) {
  if (!options_.steps_from_timeline)
    return skip("communication rows (pid 10000: the step trace's reduce columns give them)");
  const auto op = collective_op_of(op_type(event.name));
  add_mindspore_collective(assembly_, op.value_or(profiler::CollectiveOp::kAllReduce), tid, start,
                           dur, options_.rank);
  count(op ? "collectives (pid 10000 communication rows)"
           : "collectives (pid 10000 rows naming no op, read as AllReduce)");
}

void TimelineImporter::complete(const ChromeEvent& event, std::int64_t start, std::int64_t dur) {
  const auto tid = lane_number(event.tid);
  if (!tid || event.pid.number == kActivityPid) {  // "Stream #3": CUDA activity
    profiler::GpuActivityRow row;
    row.track = lane(kActivityPid, tid.value_or(0), TrackKind::kGpuStream);
    row.start_ns = start;
    row.dur_ns = dur;
    row.name = assembly_.name(event.name);
    assembly_.add_gpu_activity(row);
    return count("GPU kernels (Activity Op)");
  }
  if (event.pid.number == kOverlapPid)
    return skip("overlap analysis rows (pid 12000, derived from the ops)");
  if (event.pid.number == kCommunicationPid) return communication(event, *tid, start, dur);
  if (*tid == kStepsTid) {
    const auto step = whole_number(event.name);
    if (!options_.steps_from_timeline)
      return skip("timeline step rows (the step trace gives them)");
    if (!step) return skip("step rows whose name is not a step number");
    assembly_.add_range(assembly_.track("Steps", TrackKind::kHostThread), start, dur,
                        assembly_.name("step " + std::to_string(*step)), Category::kStep, step);
    ++ops_.lane_steps;
    return count("steps (timeline Steps lane)");
  }
  if (*tid == kScopeTid) {
    assembly_.add_range(lane(event.pid.number, kScopeTid, TrackKind::kHostThread), start, dur,
                        assembly_.name(event.name), Category::kLayer);
    return count("scopes (Scope Name lane)");
  }
  op(event, *tid, start, dur);
}

void TimelineImporter::metadata(const ChromeEvent& event) {
  if (event.name == "process_name") {
    process_names_[event.pid.number] = std::string(event.label);
  } else if (event.name == "thread_name" && lane_number(event.tid)) {
    thread_names_[{event.pid.number, *lane_number(event.tid)}] = std::string(event.label);
  } else {
    return skip("metadata other than process and thread names (sort order, labels)");
  }
  count("process and thread names");
}

void TimelineImporter::event(const ChromeEvent& event, std::uint64_t offset) {
  ++summary_.events;
  if (event.phase == 'M') return metadata(event);
  if (event.phase != 'X')
    return skip("events of ph '" + std::string(1, event.phase) + "' (MindSpore writes only X)");
  if (!event.ts_ns || event.pid.is_text)
    throw Error(
        "the 'X' event at byte " + std::to_string(offset) + " has no \"ts\" or no numeric \"pid\"",
        where_, "MindSpore's timeline gives every op a pid and a ts in microseconds");
  complete(event, *event.ts_ns, event.dur_ns.value_or(0));
}

TimelineOps TimelineImporter::finish() {
  for (const auto& [lane, track] : lanes_) {
    const auto [pid, tid] = lane;
    const auto process = process_names_.find(pid);
    const auto thread = thread_names_.find(lane);
    const std::string label =
        (process != process_names_.end() ? process->second : default_process_label(pid)) + " / " +
        (thread != thread_names_.end() ? thread->second : "stream " + std::to_string(tid));
    const bool device = pid != kHostCpuPid && tid != kScopeTid;
    // Device ops' pid is the device; AI CPU ops run on the rank's device too.
    const std::int64_t device_id = pid == kAiCpuPid ? options_.rank : pid;
    assembly_.describe_track(track, label, pid, tid,
                             device ? std::optional(device_id) : std::nullopt,
                             device ? std::optional(tid) : std::nullopt);
  }
  std::sort(ops_.gradient_starts.begin(), ops_.gradient_starts.end());
  std::sort(ops_.op_starts.begin(), ops_.op_starts.end());
  std::sort(ops_.first_op_starts.begin(), ops_.first_op_starts.end());
  return std::move(ops_);
}

}  // namespace

std::string_view op_type(std::string_view name) {
  const std::size_t at = name.rfind("-op");
  return at != std::string_view::npos && op_instance(name) ? name.substr(0, at) : name;
}

bool is_gradient_op(std::string_view type) {
  return type.find("Grad") != std::string_view::npos ||
         type.find("Backprop") != std::string_view::npos;
}

bool looks_like_mindspore_timeline(std::string_view head) {
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '[') return false;
  // json.dump's spacing, as MindSpore writes it, or none.
  static const std::regex kMarker(R"re("tid": ?10000[0-3]\b|"name": ?"[A-Za-z0-9]+-op[0-9]+")re");
  return std::regex_search(head.begin(), head.end(), kMarker);
}

TimelineOps read_mindspore_timeline(const std::filesystem::path& in, const ImportOptions& options,
                                    const TimelineOptions& timeline, TraceAssembly& assembly,
                                    ImportSummary& summary) {
  TimelineImporter importer(assembly, summary, timeline, in.string());
  ChromeEventParser parser;
  const std::uint64_t total = std::filesystem::file_size(in);
  JsonStreamCallbacks callbacks;
  callbacks.on_event = [&](const RawJsonValue& value) {
    importer.event(parser.parse(value, in.string()), value.offset);
  };
  callbacks.on_member = [&](std::string_view, const RawJsonValue&) {};
  if (options.progress)
    callbacks.on_progress = [&](std::uint64_t done) { options.progress(done, total); };
  const JsonStreamResult stream = read_chrome_json(in, callbacks);
  if (stream.object_format)
    throw Error("the timeline is a JSON object, not MindSpore's bare array of events", in.string(),
                "is it a MindSpore timeline (ascend_/gpu_timeline_display_<rank>.json)?");
  return importer.finish();
}

}  // namespace parity::importers::trace
