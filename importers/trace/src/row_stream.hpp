// The rows of an import that need nothing of the rest of the trace but its
// time origin (GPU activity and API calls), written into the trace database
// on a thread of their own while the importer still reads the file. On two
// cores their SQLite inserts, about a third of an import's, overlap the
// reading instead of following it. Times are taken from a provisional origin
// (the earliest time seen when the stream began); TraceAssembly::write shifts
// them where an earlier event came later.
#pragma once

#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "bounded_queue.hpp"
#include "parity/profiler/trace_rows.hpp"

namespace parity::profiler {
class TraceWriter;
}

namespace parity::importers::trace {

class RowStream {
 public:
  // Creates `out` (it must not exist) and starts the writing thread.
  RowStream(const std::filesystem::path& out, std::int64_t origin_ns);
  // Stops the thread; what was written stays in the file, for the owner to keep or remove.
  ~RowStream();
  RowStream(const RowStream&) = delete;
  RowStream& operator=(const RowStream&) = delete;

  // Rows with their times on the file's clock. Throw the writing thread's
  // error (a full disk) once it has failed.
  void add(profiler::GpuActivityRow row);
  void add(profiler::ApiCallRow row);

  std::int64_t origin_ns() const { return origin_ns_; }

  // Writes what is pending, stops the thread and hands over the writer, in
  // an open transaction, for the rest of the trace.
  std::unique_ptr<profiler::TraceWriter> finish();

 private:
  struct Batch {
    std::vector<profiler::GpuActivityRow> activities;
    std::vector<profiler::ApiCallRow> calls;
    std::size_t size() const { return activities.size() + calls.size(); }
  };
  void ship();
  void write_batches();
  void stop();

  std::unique_ptr<profiler::TraceWriter> writer_;
  std::int64_t origin_ns_;
  Batch pending_;
  BoundedQueue<Batch> queue_;
  std::exception_ptr error_;  // the writing thread's, read after it stopped taking batches
  std::thread thread_;
};

}  // namespace parity::importers::trace
