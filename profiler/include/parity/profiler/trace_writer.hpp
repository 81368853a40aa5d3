// TraceWriter: creates a trace database and appends rows to it with prepared
// statements inside explicit transactions. Used by the recorder's writer
// thread and by importers that convert foreign traces. Not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "parity/profiler/sqlite.hpp"
#include "parity/profiler/trace_rows.hpp"

namespace parity::profiler {

class TraceWriter {
 public:
  // How the file is kept whole while it is written.
  enum class Journal {
    // The recorder's: readers can open the trace meanwhile, and a killed
    // writer loses no committed transaction.
    kWal,
    // No journal and no syncs, for a file that is renamed into place only
    // once finished (an import): a file whose writer failed or was killed is
    // garbage. Each page is written once instead of to the WAL and then
    // again at the checkpoint, about a tenth of an import's time.
    kScratch,
  };

  // Creates the file (it must not exist yet: an existing trace is never overwritten
  // by accident) with the current schema, the journal and meta.schema_version.
  explicit TraceWriter(const std::filesystem::path& path, Journal journal = Journal::kWal);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void begin();   // opens a transaction
  void commit();  // commits it: from here on the rows survive a killed process
  bool in_transaction() const { return in_transaction_; }

  // By default this connection checkpoints the WAL every 32 MiB; turn that off
  // when another connection checkpoints (the recorder's WalCheckpointer).
  void set_auto_checkpoint(bool enabled);

  void set_meta(std::string_view key, std::string_view value);
  void add_string(NameId id, std::string_view text);
  void add(const TrackRow& row);
  void add(const RangeRow& row);
  void add(const InstantRow& row);
  void add(const StepRow& row);
  void add(const CounterRow& row);
  void add(const QueueSampleRow& row);
  void add(const ParameterRow& row);
  void add(const GradReadyRow& row);
  void add(const CollectiveRow& row);
  void add(const GpuActivityRow& row);
  void add(const ApiCallRow& row);

  // Adds delta_ns to the time of every row written so far (and to steps' ends):
  // for a writer that began before it knew the trace's time origin (an
  // importer writing rows while it still reads the file).
  void shift_times(std::int64_t delta_ns);

  // Checkpoints the WAL into the main file and switches to a rollback journal,
  // so that the finished trace is one self-contained file (kScratch: just that switch).
  void finalize();

  const std::filesystem::path& path() const { return db_.path(); }

 private:
  struct Statements;
  std::int64_t launch_config_id(const LaunchConfig& config);

  sql::Database db_;
  std::unique_ptr<Statements> statements_;
  std::map<std::array<std::uint32_t, 8>, std::int64_t> launch_configs_;
  bool in_transaction_ = false;
};

}  // namespace parity::profiler
