// The processes and threads of an Nsight Systems export as Parity tracks.
// One export may hold several processes (the ranks of a data-parallel run
// profiled together): each gets its own thread, stream and collective
// tracks. The processes with GPU activity (kernels, copies, sets or
// synchronisations) are the ranks, numbered in the order of their PIDs; a
// process that only calls the CUDA API (a launcher asking for the device's
// properties, as pytest's helpers do) keeps its calls but is no rank. The
// ranks' correlation ids, which nsys keeps unique per process only, are made
// unique in the trace by adding rank * 2^32, and those of the processes that
// are no rank by adding (rank count + their place in PID order) * 2^32.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nsys/nsys_source.hpp"

namespace parity::importers::trace {

class NsysProcesses {
 public:
  // Finds the ranks and reads the process and thread names (PROCESSES, ThreadNames).
  explicit NsysProcesses(NsysSource& source);

  std::size_t rank_count() const { return ranks_.size(); }
  std::optional<std::int64_t> rank(std::int64_t process) const;
  // The trace's correlation id for a process's.
  std::optional<std::int64_t> correlation(std::optional<std::int64_t> id,
                                          std::int64_t process) const;

  TrackId thread(std::int64_t global_tid);
  TrackId stream(std::int64_t process, std::int64_t device, std::int64_t stream);
  // A process's track for `what` ("NVTX start/end ranges", "collectives NCCL (GPU 0)").
  TrackId lane(std::int64_t process, const std::string& what, profiler::TrackKind kind);
  // "python3 [1234]", with "rank 1 " before it when the export holds several ranks.
  std::string label(std::int64_t process) const;
  // "rank 0: python3 [1234]; rank 1: python3 [1235]".
  std::string rank_list() const;

 private:
  void read_names();
  std::string process_name(std::int64_t process) const;  // "python3 [1234]"

  NsysSource& source_;
  std::map<std::int64_t, std::int64_t> ranks_;  // process -> rank
  // process -> what its correlation ids are offset by, in units of 2^32: the
  // rank, or for a process that only calls the CUDA API, a number after the ranks'.
  std::map<std::int64_t, std::int64_t> correlation_spaces_;
  std::map<std::int64_t, std::string> process_names_, thread_names_;
};

}  // namespace parity::importers::trace
