// output_timeline_data_<rank>.txt, the device's op times that the Ascend
// timeline JSON of MindSpore 0.5-1.x was made from ("op_name, stream_id,
// start_time(ms), duration(ms)", full op names). Its times are on the step
// trace's clock (the device's 100 MHz counter, in ms), while the JSON's are
// shifted to begin near 0 (less min_cycle_counter, or synchronised to the
// host): the earliest op, found in both, gives the shift between the two.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace parity::importers::trace {

struct TimelineAnchor {
  std::string op;  // as the JSON names it: the full name's last part, "AssignAdd-op142"
  std::int64_t stream = 0;
  std::int64_t start_ns = 0;  // on the step trace's clock
};

// The file's earliest op; nullopt for a file with no ops. Throws
// parity::Error naming the file and line for a row that is not
// "name, stream, start ms, duration ms".
std::optional<TimelineAnchor> read_timeline_anchor(const std::filesystem::path& path);

}  // namespace parity::importers::trace
