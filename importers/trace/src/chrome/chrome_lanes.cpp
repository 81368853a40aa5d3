#include "chrome/chrome_lanes.hpp"

namespace parity::importers::trace {

std::string ChromeLanes::spelled(const LaneId& lane) {
  return lane.is_text ? std::string(lane.text) : std::to_string(lane.number);
}

bool ChromeLanes::same(const LaneId& lane, const std::optional<std::int64_t>& number,
                       const std::string& text) {
  return lane.is_text ? !number && lane.text == text : number == lane.number;
}

TrackId ChromeLanes::host_thread(const ChromeEvent& event) {
  if (last_ && same(event.pid, last_->pid, last_->pid_text) &&
      same(event.tid, last_->tid, last_->tid_text))
    return last_->track;
  const std::string pid = spelled(event.pid), tid = spelled(event.tid);
  const std::string key = pid + "/" + tid;
  auto it = host_lanes_.find(key);
  if (it == host_lanes_.end()) {
    const TrackId track = assembly_.track("host " + key, profiler::TrackKind::kHostThread);
    const auto number = [](const LaneId& id) {
      return id.is_text ? std::nullopt : std::optional<std::int64_t>(id.number);
    };
    it = host_lanes_.emplace(key, HostLane{number(event.pid), number(event.tid), pid, tid, track})
             .first;
  }
  last_ = &it->second;
  return it->second.track;
}

TrackId ChromeLanes::gpu_stream(std::int64_t device, std::int64_t stream) {
  if (const auto it = streams_.find({device, stream}); it != streams_.end()) return it->second;
  const std::string key = "GPU " + std::to_string(device) + " stream " + std::to_string(stream);
  const TrackId track = assembly_.track(key, profiler::TrackKind::kGpuStream);
  assembly_.describe_track(track, key, {}, {}, device, stream);
  streams_.emplace(std::make_pair(device, stream), track);
  return track;
}

TrackId ChromeLanes::counter(const std::string& name) {
  const TrackId track = assembly_.track("counter " + name, profiler::TrackKind::kCounter);
  if (!assembly_.has_label(track)) assembly_.describe_track(track, name, {}, {});
  return track;
}

bool ChromeLanes::take_label(const ChromeEvent& event) {
  if (event.name == "process_name") {
    process_labels_[spelled(event.pid)] = std::string(event.label);
    return true;
  }
  if (event.name == "thread_name") {
    thread_labels_[spelled(event.pid) + "/" + spelled(event.tid)] = std::string(event.label);
    return true;
  }
  return false;
}

void ChromeLanes::label_tracks() {
  for (const auto& [key, lane] : host_lanes_) {
    const auto process = process_labels_.find(lane.pid_text);
    const auto thread = thread_labels_.find(key);
    std::string label = process != process_labels_.end() && !process->second.empty()
                            ? process->second
                            : "process " + lane.pid_text;
    label += " / ";
    label += thread != thread_labels_.end() && !thread->second.empty() ? thread->second
                                                                       : "thread " + lane.tid_text;
    assembly_.describe_track(lane.track, label, lane.pid, lane.tid);
  }
}

}  // namespace parity::importers::trace
