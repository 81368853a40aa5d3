// The lanes of a Chrome trace as Parity tracks: host threads by (pid, tid),
// GPU streams by (device, stream), counters by name. Process and thread
// names ('M' events) may come after the events on their lanes, so tracks are
// labelled once the whole file has been read.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "chrome/chrome_event.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

class ChromeLanes {
 public:
  explicit ChromeLanes(TraceAssembly& assembly) : assembly_(assembly) {}

  TrackId host_thread(const ChromeEvent& event);
  TrackId gpu_stream(std::int64_t device, std::int64_t stream);
  TrackId counter(const std::string& name);
  // process_name / thread_name metadata; false for other 'M' events.
  bool take_label(const ChromeEvent& event);
  // Gives every host-thread track its label: "<process> / <thread>".
  void label_tracks();

 private:
  struct HostLane {
    std::optional<std::int64_t> pid, tid;  // where they are numbers
    std::string pid_text, tid_text;
    TrackId track;
  };
  static std::string spelled(const LaneId& lane);
  static bool same(const LaneId& lane, const std::optional<std::int64_t>& number,
                   const std::string& text);

  TraceAssembly& assembly_;
  std::map<std::string, HostLane> host_lanes_;  // by "pid/tid"
  const HostLane* last_ = nullptr;              // most events are on the lane of the one before
  std::map<std::pair<std::int64_t, std::int64_t>, TrackId> streams_;  // by (device, stream)
  std::map<std::string, std::string> process_labels_;                 // by pid
  std::map<std::string, std::string> thread_labels_;                  // by "pid/tid"
};

}  // namespace parity::importers::trace
