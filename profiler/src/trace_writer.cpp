#include "parity/profiler/trace_writer.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "parity/core/error.hpp"
#include "parity/profiler/schema/insert.hpp"
#include "parity/profiler/schema/tables.hpp"

namespace parity::profiler {
namespace {

sql::Database create_database(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec))
    throw Error("refusing to overwrite an existing file", path.string(),
                "choose a new trace path or delete the old trace first");
  return sql::Database(path, sql::Database::Mode::kCreate);
}

// The (track_id, start_ns, id) primary key of the WITHOUT ROWID tables.
std::tuple<TrackId, std::int64_t, std::int64_t> clustered_key(const auto& row) {
  return {row.track, row.start_ns, row.id};
}

// Inserts rows kRowsPerStatement at a time through one multi-row
// "INSERT ... VALUES (...), (...), ..." statement: binding is the same work,
// but SQLite runs one statement per batch instead of one per row, which is
// most of the cost for narrow rows. Leftovers go through the one-row statement.
template <class Row>
class BatchedInsert {
 public:
  static constexpr std::size_t kRowsPerStatement = 32;
  static constexpr int kColumns = schema::kBoundColumns<schema::kTable<Row>>;

  explicit BatchedInsert(sql::Database& db)
      : one_(db, schema::insert_sql<schema::kTable<Row>>()),
        many_(db, schema::insert_sql<schema::kTable<Row>>("INSERT", kRowsPerStatement)) {
    pending_.reserve(kRowsPerStatement);
  }

  void add(const Row& row) {
    pending_.push_back(row);
    if (pending_.size() < kRowsPerStatement) return;
    std::sort(pending_.begin(), pending_.end(),
              [](const Row& a, const Row& b) { return clustered_key(a) < clustered_key(b); });
    for (std::size_t i = 0; i < pending_.size(); ++i)
      schema::bind_row<schema::kTable<Row>>(many_, 1 + static_cast<int>(i) * kColumns, pending_[i]);
    many_.run();
    pending_.clear();
  }

  void flush() {
    for (const Row& row : pending_) {
      schema::bind_row<schema::kTable<Row>>(one_, 1, row);
      one_.run();
    }
    pending_.clear();
  }

 private:
  sql::Statement one_, many_;
  std::vector<Row> pending_;
};

// One row of Row inserted with the statement generated from its table's declaration.
template <class Row>
class Insert {
 public:
  Insert(sql::Database& db, std::string_view verb)
      : statement_(db, schema::insert_sql<schema::kTable<Row>>(verb)) {}
  void add(const Row& row) {
    schema::bind_row<schema::kTable<Row>>(statement_, 1, row);
    statement_.run();
  }

 private:
  sql::Statement statement_;
};

}  // namespace

struct TraceWriter::Statements {
  explicit Statements(sql::Database& db)
      : meta(db, "INSERT OR REPLACE"),
        string(db, "INSERT"),
        track(db, "INSERT OR REPLACE"),
        range(db),
        instant(db, "INSERT"),
        step(db, "INSERT OR REPLACE"),
        counter(db, "INSERT"),
        queue_sample(db, "INSERT"),
        parameter(db, "INSERT OR REPLACE"),
        grad_ready(db, "INSERT"),
        collective(db, "INSERT"),
        gpu_activity(db),
        launch_config(db, "INSERT"),
        api_call(db),
        begin(db, "BEGIN"),
        commit(db, "COMMIT") {}

  void flush_batches() {
    range.flush();
    gpu_activity.flush();
    api_call.flush();
  }

  Insert<MetaRow> meta;
  Insert<StringRow> string;
  Insert<TrackRow> track;
  BatchedInsert<RangeRow> range;
  Insert<InstantRow> instant;
  Insert<StepRow> step;
  Insert<CounterRow> counter;
  Insert<QueueSampleRow> queue_sample;
  Insert<ParameterRow> parameter;
  Insert<GradReadyRow> grad_ready;
  Insert<CollectiveRow> collective;
  BatchedInsert<StoredGpuActivityRow> gpu_activity;
  Insert<LaunchConfigRow> launch_config;
  BatchedInsert<ApiCallRow> api_call;
  sql::Statement begin, commit;
};

TraceWriter::TraceWriter(const std::filesystem::path& path, Journal journal)
    : db_(create_database(path)) {
  // WAL: readers can open the trace while it is written, and a killed writer
  // leaves every committed transaction intact. NORMAL sync is crash-safe for a
  // killed process (only a power loss can cost the last transactions).
  db_.exec("PRAGMA page_size=4096; PRAGMA cache_size=-65536;");
  db_.exec(journal == Journal::kWal
               ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=8192;"
               : "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
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
  statements_->meta.add(MetaRow{std::string(key), std::string(value)});
}

void TraceWriter::add_string(NameId id, std::string_view text) {
  statements_->string.add(StringRow{id, std::string(text)});
}

void TraceWriter::add(const TrackRow& row) { statements_->track.add(row); }
void TraceWriter::add(const RangeRow& row) { statements_->range.add(row); }
void TraceWriter::add(const InstantRow& row) { statements_->instant.add(row); }
void TraceWriter::add(const StepRow& row) { statements_->step.add(row); }
void TraceWriter::add(const CounterRow& row) { statements_->counter.add(row); }
void TraceWriter::add(const QueueSampleRow& row) { statements_->queue_sample.add(row); }
void TraceWriter::add(const ParameterRow& row) { statements_->parameter.add(row); }
void TraceWriter::add(const GradReadyRow& row) { statements_->grad_ready.add(row); }
void TraceWriter::add(const CollectiveRow& row) { statements_->collective.add(row); }

std::int64_t TraceWriter::launch_config_id(const LaunchConfig& c) {
  const std::array<std::uint32_t, 8> key{c.grid[0],  c.grid[1],  c.grid[2],      c.block[0],
                                         c.block[1], c.block[2], c.shared_bytes, c.registers};
  const auto [it, inserted] =
      launch_configs_.emplace(key, static_cast<std::int64_t>(launch_configs_.size() + 1));
  if (inserted) statements_->launch_config.add(LaunchConfigRow{c, it->second});
  return it->second;
}

void TraceWriter::add(const GpuActivityRow& row) {
  std::optional<std::int64_t> launch;
  if (row.launch) launch = launch_config_id(*row.launch);
  statements_->gpu_activity.add(StoredGpuActivityRow{row, launch});
}

void TraceWriter::add(const ApiCallRow& row) { statements_->api_call.add(row); }

void TraceWriter::shift_times(std::int64_t delta_ns) {
  if (delta_ns == 0) return;
  statements_->flush_batches();
  // Every time column of the schema; a shift keeps each table's keys unique.
  static constexpr std::pair<std::string_view, std::string_view> kTimes[] = {
      {"range", "start_ns"},   {"instant", "ts_ns"},       {"step", "start_ns"},
      {"step", "end_ns"},      {"counter", "ts_ns"},       {"queue_sample", "ts_ns"},
      {"grad_ready", "ts_ns"}, {"collective", "start_ns"}, {"gpu_activity", "start_ns"},
      {"api_call", "start_ns"}};
  for (const auto& [table, column] : kTimes) {
    sql::Statement shift(db_, "UPDATE " + std::string(table) + " SET " + std::string(column) +
                                  " = " + std::string(column) + " + ?1");
    shift.bind(1, delta_ns);
    shift.run();
  }
}

void TraceWriter::finalize() {
  commit();
  db_.exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;");
}

}  // namespace parity::profiler
