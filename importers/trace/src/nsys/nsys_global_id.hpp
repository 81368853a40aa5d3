// Nsight Systems' serialized thread and process ids (globalTid, globalPid):
// <hardware id:8><VM id:8><process id:24><thread id:24>, a globalPid with the
// thread bits zero. Tracks are keyed on the whole value, so that two hosts of
// a merged report stay apart; pid and tid are decoded for display.
#pragma once

#include <cstdint>

namespace parity::importers::trace {

constexpr std::int64_t kNsysThreadBits = 0xFFFFFF;

constexpr std::int64_t nsys_tid(std::int64_t global_id) { return global_id & kNsysThreadBits; }
constexpr std::int64_t nsys_pid(std::int64_t global_id) {
  return (global_id >> 24) & kNsysThreadBits;
}
// The process part of a globalTid: the globalPid of its process.
constexpr std::int64_t nsys_process(std::int64_t global_id) { return global_id & ~kNsysThreadBits; }

// NVIDIA's documented example: hardware id 1, PID 14944, TID 9596.
static_assert(nsys_pid(0x0100003A6000257C) == 14944 && nsys_tid(0x0100003A6000257C) == 9596);

}  // namespace parity::importers::trace
