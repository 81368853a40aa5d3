// parity synth: the synthetic trace's size, structure and determinism, checked
// with SQL on the written databases, and the command's refusals.
#include "parity/analyzer/synth/synth.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/sql_queries.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using parity::analyzer::SynthOptions;
using parity::profiler::RangeRow;
using parity::profiler::StepRow;
using parity::profiler::TraceReader;
using parity::profiler::sql::query_int;
using parity::profiler::sql::query_texts;
namespace schema = parity::profiler::schema;

namespace {

constexpr const char* kEventTables[] = {"range",      "api_call",     "gpu_activity",
                                        "collective", "queue_sample", "counter",
                                        "grad_ready", "instant",      "step"};

fs::path write_trace(const TempDir& dir, SynthOptions options, const std::string& name = "t.db") {
  const auto paths = parity::analyzer::write_synth_trace(options, dir / name);
  REQUIRE(paths.size() == static_cast<std::size_t>(options.ranks));
  return paths.front();
}

std::int64_t count(TraceReader& trace, const std::string& sql) {
  return query_int(trace.db(), sql);
}

std::int64_t event_rows(TraceReader& trace) {
  std::int64_t rows = 0;
  for (const char* table : kEventTables)
    rows += count(trace, std::string("SELECT count(*) FROM ") + table);
  return rows;
}

// Every row of a table as text, in storage order.
std::vector<std::string> table_text(TraceReader& trace, const std::string& table) {
  std::string row = "''";
  for (const std::string& column :
       query_texts(trace.db(), "SELECT name FROM pragma_table_info('" + table + "')"))
    row += " || '|' || quote(" + column + ")";
  return query_texts(trace.db(), "SELECT " + row + " FROM " + table);
}

// Step durations in order, from the step table.
std::vector<double> step_seconds(TraceReader& trace) {
  std::vector<double> seconds;
  schema::for_each<schema::kTable<StepRow>, &StepRow::start_ns, &StepRow::end_ns>(
      trace.db(), "ORDER BY step",
      [&](const StepRow& step) { seconds.push_back(double(step.end_ns - step.start_ns) * 1e-9); });
  return seconds;
}

double median_after_first(std::vector<double> values) {
  values.erase(values.begin());
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

ProcessResult parity_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_CLI);
  return run_process(args);
}

}  // namespace

TEST_CASE("synth writes the requested number of event rows to within a step", "[unit]") {
  TempDir dir;
  for (const bool gpu : {true, false}) {
    for (const std::int64_t events : {1, 5'000, 20'000}) {
      SynthOptions options;
      options.events = events;
      options.gpu = gpu;
      const fs::path path =
          write_trace(dir, options, std::to_string(events) + (gpu ? "g" : "c") + ".db");
      TraceReader trace(path);
      const std::int64_t rows = event_rows(trace);
      const std::int64_t steps = count(trace, "SELECT count(*) FROM step");
      INFO("gpu " << gpu << " events " << events << " rows " << rows << " steps " << steps);
      REQUIRE(steps >= 1);
      CHECK(std::llabs(rows - events) <= rows / steps);
      CHECK(trace.meta_value("synth.rows") == std::to_string(rows));
    }
  }
}

TEST_CASE("synth traces open with TraceReader and carry the recorder's meta", "[unit]") {
  TempDir dir;
  SynthOptions options;
  options.events = 5'000;
  TraceReader trace(write_trace(dir, options));
  for (const char* key : {"schema_version", "tool_version", "command_line", "config", "host", "pid",
                          "clock", "clock_origin_unix_ns", "tick_source", "created_at"})
    CHECK(trace.meta_value(key).has_value());
  CHECK(trace.meta_value("complete") == "1");
  CHECK(trace.meta_value("dropped_records") == "0");
  CHECK(trace.meta_value("rank") == "0");
  CHECK(trace.meta_value("world_size") == "1");
  CHECK_THAT(*trace.meta_value("command_line"), Catch::StartsWith("parity synth --events 5000"));

  std::vector<std::string> tracks;
  for (const auto& track : trace.tracks()) tracks.push_back(trace.string(track.name));
  CHECK(tracks == std::vector<std::string>{"main", "data loader", "train", "loss", "lr",
                                           "loss_scale", "memory_used_bytes",
                                           "memory_capacity_bytes", "GPU 0", "GPU 0 stream 7",
                                           "GPU 0 stream 13"});

  const auto parameters = trace.parameters();
  REQUIRE(parameters.size() == 161);
  CHECK(parameters.front().name == "conv1.weight");
  CHECK(parameters.front().shape == "64,3,7,7");
  CHECK(parameters[3].name == "layer1.0.conv1.weight");
  CHECK(parameters.back().name == "fc.bias");
  std::int64_t bytes = 0;
  for (const auto& parameter : parameters) bytes += parameter.bytes;
  CHECK(bytes == 25'557'032LL * 4);  // torchvision's ResNet-50
}

TEST_CASE("synth ranges nest properly with ids in begin order", "[unit]") {
  TempDir dir;
  for (const bool gpu : {true, false}) {
    SynthOptions options;
    options.events = 8'000;
    options.gpu = gpu;
    TraceReader trace(write_trace(dir, options, gpu ? "gpu.db" : "cpu.db"));
    INFO("gpu " << gpu);
    // The range table has no index on id (docs/trace-schema.md): parent lookups
    // go through an indexed temporary copy.
    trace.db().exec(
        "CREATE TEMP TABLE ranges AS SELECT * FROM range;"
        "CREATE INDEX temp.ranges_id ON ranges(id);"
        "CREATE INDEX temp.ranges_parent ON ranges(parent_id)");
    CHECK(count(trace,
                "SELECT count(*) FROM ranges c JOIN ranges p ON c.parent_id = p.id "
                "WHERE c.start_ns < p.start_ns OR c.start_ns + c.dur_ns > p.start_ns + p.dur_ns "
                "OR c.depth != p.depth + 1 OR c.track_id != p.track_id") == 0);
    CHECK(count(trace,
                "SELECT count(*) FROM ranges c LEFT JOIN ranges p ON c.parent_id = p.id "
                "WHERE c.parent_id IS NOT NULL AND p.id IS NULL") == 0);
    CHECK(count(trace, "SELECT count(*) FROM range WHERE parent_id IS NULL AND depth != 0") == 0);
    CHECK(count(trace, "SELECT count(DISTINCT id) FROM range") ==
          count(trace, "SELECT count(*) FROM range"));
    CHECK(count(trace,
                "SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY start_ns, id) AS "
                "previous FROM range) WHERE previous > id") == 0);
    // Siblings on a track never overlap.
    CHECK(count(trace,
                "SELECT count(*) FROM (SELECT start_ns, lag(start_ns + dur_ns) OVER "
                "(PARTITION BY track_id, parent_id ORDER BY start_ns) AS previous_end "
                "FROM range) WHERE previous_end > start_ns") == 0);

    // Each step: data_wait, forward, backward, optimizer.
    int steps = 0;
    for (const std::string& phases :
         query_texts(trace.db(),
                     "SELECT group_concat(name, ' ') FROM (SELECT s.id AS step, t.text AS name "
                     "FROM ranges s JOIN ranges p ON p.parent_id = s.id JOIN string t "
                     "ON t.id = p.name_id WHERE s.category = 1 ORDER BY s.id, p.start_ns) "
                     "GROUP BY step")) {
      CHECK(phases == "data_wait forward backward optimizer");
      ++steps;
    }
    CHECK(steps == count(trace, "SELECT count(*) FROM step"));
    // Forward visits the modules conv1 .. fc, backward fc .. conv1, with _backward ops.
    const auto layer_names = [&](const char* phase, const char* order) {
      const std::int64_t first = count(
          trace, std::string("SELECT r.id FROM ranges r JOIN string t ON t.id = r.name_id WHERE "
                             "t.text = '") +
                     phase + "' ORDER BY r.start_ns LIMIT 1");
      // The layers, read from the indexed copy `ranges` of the range table.
      schema::Select<schema::kTable<RangeRow>, &RangeRow::name> layers(
          trace.db(), "WHERE parent_id = " + std::to_string(first) + " ORDER BY start_ns " + order,
          "ranges");
      std::vector<std::string> names;
      for (RangeRow layer; layers.next(layer);) names.push_back(trace.string(layer.name));
      return names;
    };
    const auto forward = layer_names("forward", "ASC");
    const auto backward = layer_names("backward", "DESC");
    CHECK(forward.size() == 158);
    CHECK(forward == backward);
    CHECK(forward.front() == "conv1");
    CHECK(forward[4] == "layer1.0.conv1");
    CHECK(forward.back() == "fc");
    CHECK(count(trace,
                "SELECT count(*) FROM ranges o JOIN ranges l ON o.parent_id = l.id "
                "JOIN ranges p ON l.parent_id = p.id JOIN string ot ON ot.id = o.name_id "
                "JOIN string pt ON pt.id = p.name_id WHERE pt.text = 'backward' AND "
                "ot.text NOT LIKE '%\\_backward' ESCAPE '\\' AND ot.text != 'reorder'") == 0);
    CHECK(count(trace,
                "SELECT count(*) FROM range r JOIN string t ON t.id = r.name_id "
                "WHERE t.text = 'reorder' AND r.category = 4") >= 2 * steps);
  }
}

TEST_CASE("synth kernels follow their launches and never overlap on a stream", "[unit]") {
  TempDir dir;
  SynthOptions options;
  options.events = 10'000;
  TraceReader trace(write_trace(dir, options));
  const std::int64_t steps = count(trace, "SELECT count(*) FROM step");
  CHECK(count(trace, "SELECT count(*) FROM gpu_activity WHERE kind = 1") > 500 * steps);
  CHECK(count(trace,
              "SELECT count(*) FROM gpu_activity g WHERE NOT EXISTS (SELECT 1 FROM "
              "api_call a WHERE a.correlation_id = g.correlation_id AND a.start_ns < "
              "g.start_ns)") == 0);
  // Launches lie inside an op range of the launching thread.
  CHECK(count(trace,
              "SELECT count(*) FROM api_call a JOIN string t ON t.id = a.name_id WHERE "
              "t.text = 'cudaLaunchKernel' AND NOT EXISTS (SELECT 1 FROM range r WHERE "
              "r.track_id = a.track_id AND r.category = 4 AND r.start_ns <= a.start_ns AND "
              "r.start_ns >= a.start_ns - 50000000 AND a.start_ns + a.dur_ns <= "
              "r.start_ns + r.dur_ns)") == 0);
  CHECK(count(trace,
              "SELECT count(*) FROM (SELECT start_ns, lag(start_ns + dur_ns) OVER "
              "(PARTITION BY track_id ORDER BY start_ns) AS previous_end FROM "
              "gpu_activity) WHERE previous_end > start_ns") == 0);
  CHECK(count(trace,
              "SELECT count(*) FROM gpu_activity WHERE kind = 2 AND copy_kind = 1 AND "
              "bytes > 0") == steps);
  CHECK(count(trace, "SELECT count(*) FROM gpu_activity WHERE kind = 1 AND launch_id IS NULL") ==
        0);
}

TEST_CASE("synth steps match the step ranges and have realistic timing", "[unit]") {
  TempDir dir;
  for (const bool gpu : {true, false}) {
    SynthOptions options;
    options.events = 10'000;
    options.gpu = gpu;
    TraceReader trace(write_trace(dir, options, gpu ? "gpu.db" : "cpu.db"));
    INFO("gpu " << gpu);
    const std::int64_t steps = count(trace, "SELECT count(*) FROM step");
    CHECK(count(trace,
                "SELECT count(*) FROM step s JOIN range r ON r.category = 1 AND r.arg = "
                "s.step AND r.track_id = s.track_id AND r.start_ns = s.start_ns AND "
                "r.start_ns + r.dur_ns = s.end_ns") == steps);
    CHECK(count(trace, "SELECT count(*) FROM range WHERE category = 1") == steps);
    CHECK(count(trace,
                "SELECT count(*) FROM step a JOIN step b ON b.step = a.step + 1 WHERE "
                "b.start_ns <= a.end_ns OR b.start_ns > a.end_ns + 1000000") == 0);
    const std::vector<double> seconds = step_seconds(trace);
    REQUIRE(seconds.size() >= 3);
    const double median = median_after_first(seconds);
    CHECK(median == Approx(gpu ? 0.1 : 1.0).epsilon(0.25));
    CHECK(seconds.front() > 2.5 * median);  // warm-up
    // Consumer samples: one per step, waiting exactly the data wait when the queue was empty.
    CHECK(count(trace, "SELECT count(*) FROM queue_sample WHERE role = 2") == steps);
    CHECK(count(trace,
                "SELECT count(*) FROM queue_sample q JOIN range r ON r.start_ns + "
                "r.dur_ns = q.ts_ns JOIN string t ON t.id = r.name_id WHERE q.role = 2 AND "
                "t.text = 'data_wait' AND (q.wait_ns = 0 OR q.wait_ns = r.dur_ns)") == steps);
    CHECK(count(trace, "SELECT count(*) FROM queue_sample WHERE role = 2 AND wait_ns > 0") >= 1);
    CHECK(count(trace,
                "SELECT count(*) FROM queue_sample WHERE depth > capacity OR capacity != 4") == 0);
    CHECK(count(trace,
                "SELECT count(*) FROM range r JOIN string t ON t.id = r.name_id WHERE "
                "t.text = 'load_batch'") >= steps);
    if (!gpu) {
      CHECK(count(trace, "SELECT count(*) FROM gpu_activity") == 0);
      CHECK(count(trace, "SELECT count(*) FROM api_call") == 0);
      CHECK(count(trace, "SELECT count(*) FROM track WHERE kind IN (2, 3)") == 0);
    }
  }
}

TEST_CASE("synth is deterministic for a seed", "[unit]") {
  TempDir dir;
  SynthOptions options;
  options.events = 6'000;
  options.ranks = 2;
  options.seed = 7;
  TraceReader a(write_trace(dir, options, "a.db"));
  TraceReader b(write_trace(dir, options, "b.db"));
  options.seed = 8;
  TraceReader c(write_trace(dir, options, "c.db"));
  for (const char* table :
       {"range", "api_call", "gpu_activity", "collective", "queue_sample", "counter", "grad_ready",
        "instant", "step", "string", "track", "parameter", "launch_config"}) {
    INFO(table);
    CHECK(table_text(a, table) == table_text(b, table));
  }
  CHECK(table_text(a, "range") != table_text(c, "range"));
  CHECK(table_text(a, "gpu_activity") != table_text(c, "gpu_activity"));
}

TEST_CASE("synth writes one database per rank with synchronised allreduces", "[unit]") {
  TempDir dir;
  SynthOptions options;
  options.events = 8'000;
  options.ranks = 3;
  options.straggler_rank = 1;
  const auto paths = parity::analyzer::write_synth_trace(options, dir / "multi.db");
  REQUIRE(paths == std::vector<fs::path>{dir / "multi.rank0.db", dir / "multi.rank1.db",
                                         dir / "multi.rank2.db"});
  std::vector<std::unique_ptr<TraceReader>> traces;
  for (const fs::path& path : paths) traces.push_back(std::make_unique<TraceReader>(path));
  std::vector<std::int64_t> origins;
  for (std::size_t rank = 0; rank < traces.size(); ++rank) {
    TraceReader& trace = *traces[rank];
    CHECK(trace.meta_value("rank") == std::to_string(rank));
    CHECK(trace.meta_value("world_size") == "3");
    origins.push_back(std::stoll(*trace.meta_value("clock_origin_unix_ns")));
    const std::int64_t steps = count(trace, "SELECT count(*) FROM step");
    CHECK(count(trace, "SELECT count(*) FROM grad_ready") == 161 * steps);
    CHECK(count(trace, "SELECT count(*) FROM track WHERE kind = 4") == 1);
    CHECK(count(trace, "SELECT count(*) FROM collective WHERE rank != " + std::to_string(rank)) ==
          0);
    // Buckets cover every parameter once, each a contiguous forward-order range.
    CHECK(count(trace, "SELECT sum(last_param - first_param + 1) FROM collective WHERE step = 0") ==
          161);
    CHECK(count(trace, "SELECT sum(bytes) FROM collective WHERE step = 0") == 25'557'032LL * 4);
    // Reductions overlap backward, and the last one ends after it: an exposed tail.
    CHECK(count(trace,
                "SELECT count(*) FROM collective c JOIN range b ON b.category = 2 JOIN "
                "string t ON t.id = b.name_id AND t.text = 'backward' JOIN range s ON "
                "b.parent_id = s.id AND s.arg = c.step WHERE c.bucket = 0 AND "
                "c.start_ns >= b.start_ns + b.dur_ns") == 0);
    CHECK(count(trace,
                "SELECT count(*) FROM collective c JOIN range b ON b.category = 2 JOIN "
                "string t ON t.id = b.name_id AND t.text = 'backward' JOIN range s ON "
                "b.parent_id = s.id AND s.arg = c.step WHERE c.bucket = (SELECT "
                "max(bucket) FROM collective) AND c.start_ns + c.dur_ns > b.start_ns + "
                "b.dur_ns") == steps);
    CHECK(count(trace,
                "SELECT count(*) FROM collective c JOIN range o ON o.category = 2 JOIN "
                "string t ON t.id = o.name_id AND t.text = 'optimizer' JOIN range s ON "
                "o.parent_id = s.id AND s.arg = c.step WHERE c.start_ns + c.dur_ns > "
                "o.start_ns") == 0);
  }
  CHECK(origins[1] != origins[0]);
  CHECK(std::llabs(origins[1] - origins[0]) < 10'000);
  // A reduction ends at the same moment on every rank, aligned by clock_origin_unix_ns.
  const auto end_of = [&](std::size_t rank, int step, int bucket) {
    return origins[rank] +
           count(*traces[rank],
                 "SELECT start_ns + dur_ns FROM collective WHERE "
                 "step = " +
                     std::to_string(step) + " AND bucket = " + std::to_string(bucket));
  };
  CHECK(end_of(0, 1, 2) == end_of(1, 1, 2));
  CHECK(end_of(2, 1, 2) == end_of(1, 1, 2));
  // The straggler computes 25% slower; the others wait for it in the reductions.
  const auto forward_ns = [&](std::size_t rank) {
    return count(*traces[rank],
                 "SELECT sum(r.dur_ns) FROM range r JOIN string t ON t.id = "
                 "r.name_id WHERE t.text = 'forward' AND r.start_ns > (SELECT "
                 "end_ns FROM step WHERE step = 0)");
  };
  CHECK(double(forward_ns(1)) / double(forward_ns(0)) == Approx(1.25).epsilon(0.06));
  const auto comm_ns = [&](std::size_t rank) {
    return count(*traces[rank], "SELECT sum(dur_ns) FROM collective");
  };
  CHECK(comm_ns(0) > 2 * comm_ns(1));
}

TEST_CASE("synth writes one file per rank beside the requested path and refuses existing ones",
          "[unit]") {
  TempDir dir;
  using parity::analyzer::synth_trace_paths;
  CHECK(synth_trace_paths(dir / "one.db", 1) == std::vector<fs::path>{dir / "one.db"});
  CHECK(synth_trace_paths(dir / "two.db", 2) ==
        std::vector<fs::path>{dir / "two.rank0.db", dir / "two.rank1.db"});
  CHECK_THROWS_AS(synth_trace_paths(dir / "x.db", 0), parity::Error);
  CHECK_THROWS_AS(synth_trace_paths(dir / "no" / "x.db", 1), parity::Error);
  SynthOptions options;
  options.events = 100;
  write_trace(dir, options, "taken.rank1.db");
  options.ranks = 2;
  CHECK_THROWS_WITH(parity::analyzer::write_synth_trace(options, dir / "taken.db"),
                    Catch::Contains("refusing to overwrite"));
  CHECK_FALSE(fs::exists(dir / "taken.rank0.db"));
  options.straggler_rank = 2;
  CHECK_THROWS_WITH(parity::analyzer::write_synth_trace(options, dir / "s.db"),
                    Catch::Contains("--straggler-rank 2"));
}

TEST_CASE("parity synth writes traces and refuses bad input with exit code 2", "[e2e]") {
  TempDir dir;
  const std::string out = (dir / "run.db").string();
  const auto written = parity_cli(
      {"synth", "--events", "3000", "--ranks", "2", "--cpu-only", "--seed", "3", "-o", out});
  INFO("stderr: " << written.err);
  REQUIRE(written.exit_code == 0);
  CHECK_THAT(written.out, Catch::Contains("run.rank0.db: ") && Catch::Contains(" rows, ") &&
                              Catch::Contains(" bytes"));
  CHECK_THAT(written.out, Catch::Contains("run.rank1.db: "));
  TraceReader trace(dir / "run.rank1.db");
  CHECK(trace.meta_value("world_size") == "2");
  CHECK(count(trace,
              "SELECT count(*) FROM track t JOIN string s ON s.id = t.name_id WHERE "
              "s.text = 'mpi allreduce' AND t.kind = 4") == 1);

  const auto existing = parity_cli({"synth", "--events", "3000", "--ranks", "2", "-o", out});
  CHECK(existing.exit_code == 2);
  CHECK_THAT(existing.err, Catch::Contains("refusing to overwrite an existing file"));
  const auto zero = parity_cli({"synth", "--events", "0", "-o", (dir / "zero.db").string()});
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--events must be at least 1"));
  CHECK_FALSE(fs::exists(dir / "zero.db"));
  const auto no_ranks = parity_cli({"synth", "--ranks", "0", "-o", (dir / "r.db").string()});
  CHECK(no_ranks.exit_code == 2);
  CHECK_THAT(no_ranks.err, Catch::Contains("--ranks must be at least 1"));
  const auto no_output = parity_cli({"synth", "--events", "10"});
  CHECK(no_output.exit_code == 2);
}
