#include "parity/profiler/trace_writer.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "parity/core/error.hpp"

namespace parity::profiler {
namespace {

sql::Database create_database(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec))
    throw Error("refusing to overwrite an existing file", path.string(),
                "choose a new trace path or delete the old trace first");
  return sql::Database(path, sql::Database::Mode::kCreate);
}

std::int64_t as_int(auto value) { return static_cast<std::int64_t>(value); }

// The (track_id, start_ns, id) primary key of the WITHOUT ROWID tables.
std::tuple<TrackId, std::int64_t, std::int64_t> clustered_key(const auto& row) {
  return {row.track, row.start_ns, row.id};
}

void bind_range(sql::Statement& s, int p, const RangeRow& row) {
  s.bind(p, as_int(row.track))
      .bind(p + 1, row.start_ns)
      .bind(p + 2, row.id)
      .bind(p + 3, row.dur_ns)
      .bind(p + 4, as_int(row.name))
      .bind(p + 5, as_int(row.category))
      .bind(p + 6, as_int(row.depth))
      .bind(p + 7, row.parent_id)
      .bind(p + 8, row.arg);
}

// gpu_activity rows arrive with their launch configuration already interned.
struct GpuActivityInsert : GpuActivityRow {
  std::optional<std::int64_t> launch_id;
};

void bind_gpu_activity(sql::Statement& s, int p, const GpuActivityInsert& row) {
  s.bind(p, as_int(row.track))
      .bind(p + 1, row.start_ns)
      .bind(p + 2, row.id)
      .bind(p + 3, row.dur_ns)
      .bind(p + 4, as_int(row.kind))
      .bind(p + 5, as_int(row.name))
      .bind(p + 6, row.correlation_id)
      .bind(p + 7, row.launch_id)
      .bind(p + 8, row.bytes)
      .bind(p + 9, row.copy_kind);
}

void bind_api_call(sql::Statement& s, int p, const ApiCallRow& row) {
  s.bind(p, as_int(row.track))
      .bind(p + 1, row.start_ns)
      .bind(p + 2, row.id)
      .bind(p + 3, row.dur_ns)
      .bind(p + 4, as_int(row.kind))
      .bind(p + 5, as_int(row.name))
      .bind(p + 6, row.correlation_id);
}

// Inserts rows kRowsPerStatement at a time through one multi-row
// "INSERT ... VALUES (...), (...), ..." statement: binding is the same work,
// but SQLite runs one statement per batch instead of one per row, which is
// most of the cost for narrow rows. Leftovers go through the one-row statement.
template <class Row>
class BatchedInsert {
 public:
  using Binder = void (*)(sql::Statement&, int first_parameter, const Row&);
  static constexpr std::size_t kRowsPerStatement = 32;

  BatchedInsert(sql::Database& db, const std::string& insert_head, int columns, Binder binder)
      : columns_(columns),
        binder_(binder),
        one_(db, insert_head + placeholders(columns, 1)),
        many_(db, insert_head + placeholders(columns, kRowsPerStatement)) {
    pending_.reserve(kRowsPerStatement);
  }

  void add(const Row& row) {
    pending_.push_back(row);
    if (pending_.size() < kRowsPerStatement) return;
    std::sort(pending_.begin(), pending_.end(), [](const Row& a, const Row& b) {
      return clustered_key(a) < clustered_key(b);
    });
    for (std::size_t i = 0; i < pending_.size(); ++i)
      binder_(many_, 1 + static_cast<int>(i) * columns_, pending_[i]);
    many_.run();
    pending_.clear();
  }

  void flush() {
    for (const Row& row : pending_) {
      binder_(one_, 1, row);
      one_.run();
    }
    pending_.clear();
  }

 private:
  static std::string placeholders(int columns, std::size_t rows) {
    std::string group = "(";
    for (int i = 0; i < columns; ++i) group += i ? ",?" : "?";
    group += ")";
    std::string all = " VALUES ";
    for (std::size_t i = 0; i < rows; ++i) all += (i ? "," : "") + group;
    return all;
  }

  int columns_;
  Binder binder_;
  sql::Statement one_, many_;
  std::vector<Row> pending_;
};

}  // namespace

struct TraceWriter::Statements {
  explicit Statements(sql::Database& db)
      : meta(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"),
        string(db, "INSERT INTO string(id, text) VALUES(?, ?)"),
        track(db, "INSERT OR REPLACE INTO track(id, kind, name_id, pid, tid, device, stream) "
                  "VALUES(?, ?, ?, ?, ?, ?, ?)"),
        range(db, "INSERT INTO range(track_id, start_ns, id, dur_ns, name_id, category, depth, "
                  "parent_id, arg)", 9, bind_range),
        instant(db, "INSERT INTO instant(track_id, ts_ns, name_id, category, arg) "
                    "VALUES(?, ?, ?, ?, ?)"),
        step(db, "INSERT OR REPLACE INTO step(step, track_id, start_ns, end_ns) VALUES(?, ?, ?, ?)"),
        counter(db, "INSERT INTO counter(track_id, ts_ns, value) VALUES(?, ?, ?)"),
        queue_sample(db, "INSERT INTO queue_sample(track_id, ts_ns, depth, capacity, role, "
                         "thread_track_id, wait_ns) VALUES(?, ?, ?, ?, ?, ?, ?)"),
        parameter(db, "INSERT OR REPLACE INTO parameter(idx, name, shape, dtype, bytes) "
                      "VALUES(?, ?, ?, ?, ?)"),
        grad_ready(db, "INSERT INTO grad_ready(step, param_idx, ts_ns, bytes, track_id) "
                       "VALUES(?, ?, ?, ?, ?)"),
        collective(db, "INSERT INTO collective(track_id, start_ns, dur_ns, op, bytes, dtype, "
                       "bucket, first_param, last_param, rank, step) "
                       "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        gpu_activity(db, "INSERT INTO gpu_activity(track_id, start_ns, id, dur_ns, kind, name_id, "
                         "correlation_id, launch_id, bytes, copy_kind)", 10, bind_gpu_activity),
        launch_config(db, "INSERT INTO launch_config(id, grid_x, grid_y, grid_z, block_x, "
                          "block_y, block_z, shared_bytes, registers) "
                          "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        api_call(db, "INSERT INTO api_call(track_id, start_ns, id, dur_ns, kind, name_id, "
                     "correlation_id)", 7, bind_api_call),
        begin(db, "BEGIN"),
        commit(db, "COMMIT") {}

  void flush_batches() {
    range.flush();
    gpu_activity.flush();
    api_call.flush();
  }

  sql::Statement meta, string, track;
  BatchedInsert<RangeRow> range;
  sql::Statement instant, step, counter, queue_sample, parameter, grad_ready, collective;
  BatchedInsert<GpuActivityInsert> gpu_activity;
  sql::Statement launch_config;
  BatchedInsert<ApiCallRow> api_call;
  sql::Statement begin, commit;
};

TraceWriter::TraceWriter(const std::filesystem::path& path) : db_(create_database(path)) {
  // WAL: readers can open the trace while it is written, and a killed writer
  // leaves every committed transaction intact. NORMAL sync is crash-safe for a
  // killed process (only a power loss can cost the last transactions).
  db_.exec("PRAGMA page_size=4096; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
           "PRAGMA cache_size=-65536; PRAGMA wal_autocheckpoint=8192;");
  db_.exec("BEGIN");
  db_.exec(schema_sql());
  db_.exec("COMMIT");
  statements_ = std::make_unique<Statements>(db_);
  set_meta("schema_version", std::to_string(kSchemaVersion));
}

TraceWriter::~TraceWriter() {
  if (in_transaction_) {
    try {
      commit();
    } catch (const Error&) {
      // Destructors must not throw; the caller that needed the rows called commit().
    }
  }
}

void TraceWriter::begin() {
  if (in_transaction_) return;
  statements_->begin.run();
  in_transaction_ = true;
}

void TraceWriter::commit() {
  if (!in_transaction_) return;
  statements_->flush_batches();
  statements_->commit.run();
  in_transaction_ = false;
}

void TraceWriter::set_auto_checkpoint(bool enabled) {
  db_.exec(enabled ? "PRAGMA wal_autocheckpoint=8192" : "PRAGMA wal_autocheckpoint=0");
}

void TraceWriter::set_meta(std::string_view key, std::string_view value) {
  statements_->meta.bind(1, key).bind(2, value).run();
}

void TraceWriter::add_string(NameId id, std::string_view text) {
  statements_->string.bind(1, as_int(id)).bind(2, text).run();
}

void TraceWriter::add(const TrackRow& row) {
  statements_->track.bind(1, as_int(row.id))
      .bind(2, as_int(row.kind))
      .bind(3, as_int(row.name))
      .bind(4, row.pid)
      .bind(5, row.tid)
      .bind(6, row.device)
      .bind(7, row.stream)
      .run();
}

void TraceWriter::add(const RangeRow& row) { statements_->range.add(row); }

void TraceWriter::add(const InstantRow& row) {
  statements_->instant.bind(1, as_int(row.track))
      .bind(2, row.ts_ns)
      .bind(3, as_int(row.name))
      .bind(4, as_int(row.category))
      .bind(5, row.arg)
      .run();
}

void TraceWriter::add(const StepRow& row) {
  statements_->step.bind(1, row.step)
      .bind(2, as_int(row.track))
      .bind(3, row.start_ns)
      .bind(4, row.end_ns)
      .run();
}

void TraceWriter::add(const CounterRow& row) {
  statements_->counter.bind(1, as_int(row.track)).bind(2, row.ts_ns).bind(3, row.value).run();
}

void TraceWriter::add(const QueueSampleRow& row) {
  statements_->queue_sample.bind(1, as_int(row.track))
      .bind(2, row.ts_ns)
      .bind(3, as_int(row.depth))
      .bind(4, as_int(row.capacity))
      .bind(5, as_int(row.role))
      .bind(6, as_int(row.thread_track))
      .bind(7, row.wait_ns)
      .run();
}

void TraceWriter::add(const ParameterRow& row) {
  statements_->parameter.bind(1, row.index)
      .bind(2, row.name)
      .bind(3, row.shape)
      .bind(4, row.dtype)
      .bind(5, row.bytes)
      .run();
}

void TraceWriter::add(const GradReadyRow& row) {
  statements_->grad_ready.bind(1, row.step)
      .bind(2, row.param_index)
      .bind(3, row.ts_ns)
      .bind(4, row.bytes)
      .bind(5, as_int(row.track))
      .run();
}

void TraceWriter::add(const CollectiveRow& row) {
  statements_->collective.bind(1, as_int(row.track))
      .bind(2, row.start_ns)
      .bind(3, row.dur_ns)
      .bind(4, as_int(row.op))
      .bind(5, row.bytes)
      .bind(6, row.dtype)
      .bind(7, row.bucket)
      .bind(8, row.first_param)
      .bind(9, row.last_param)
      .bind(10, row.rank)
      .bind(11, row.step)
      .run();
}

std::int64_t TraceWriter::launch_config_id(const LaunchConfig& c) {
  const std::array<std::uint32_t, 8> key{c.grid[0],  c.grid[1],  c.grid[2],       c.block[0],
                                         c.block[1], c.block[2], c.shared_bytes, c.registers};
  const auto [it, inserted] =
      launch_configs_.emplace(key, static_cast<std::int64_t>(launch_configs_.size() + 1));
  if (inserted) {
    auto& statement = statements_->launch_config;
    statement.bind(1, it->second);
    for (int i = 0; i < 8; ++i) statement.bind(i + 2, as_int(key[static_cast<std::size_t>(i)]));
    statement.run();
  }
  return it->second;
}

void TraceWriter::add(const GpuActivityRow& row) {
  std::optional<std::int64_t> launch;
  if (row.launch) launch = launch_config_id(*row.launch);
  statements_->gpu_activity.add(GpuActivityInsert{row, launch});
}

void TraceWriter::add(const ApiCallRow& row) { statements_->api_call.add(row); }

void TraceWriter::finalize() {
  commit();
  db_.exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;");
}

}  // namespace parity::profiler
