#include <catch2/catch.hpp>

#include "parity/core/error.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/sql_queries.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/profiler/trace_writer.hpp"
#include "temp_dir.hpp"
#include "trace_fixture.hpp"

using namespace parity::profiler;

TEST_CASE("every row kind written by TraceWriter reads back field for field", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  TraceReader trace(path);

  CHECK(trace.meta_value("schema_version") == std::to_string(kSchemaVersion));
  CHECK(trace.meta_value("command_line") == "parity-train train --config r50.yaml");
  CHECK(trace.string(8) == "layer\"1\"");
  REQUIRE(trace.tracks().size() == 6);
  const TrackRow* stream = trace.track(fixture::kStream);
  REQUIRE(stream);
  CHECK(stream->kind == TrackKind::kGpuStream);
  CHECK(trace.string(stream->name) == "GPU 0 stream 7");
  CHECK(stream->device == 0);
  CHECK(stream->stream == 7);
  CHECK_FALSE(stream->pid.has_value());

  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM range") ==
        fixture::kSteps * fixture::kRangesPerStep);
  {
    const auto op = schema::read_one<schema::kTable<RangeRow>>(
        trace.db(), "WHERE category = 4 ORDER BY start_ns LIMIT 1");
    REQUIRE(op);
    CHECK(op->track == fixture::kMainThread);
    CHECK(op->start_ns == 1'110'000);
    CHECK(op->dur_ns == 600'000);
    CHECK(op->name == 9);
    CHECK(op->depth == 2);
    CHECK(op->parent_id == 2);  // the first layer range
    CHECK_FALSE(op->arg);
    const auto step = schema::read_one<schema::kTable<RangeRow>>(
        trace.db(), "WHERE category = 1 ORDER BY start_ns DESC LIMIT 1");
    REQUIRE(step);
    CHECK(step->arg == fixture::kSteps - 1);
    CHECK_FALSE(step->parent_id);
    CHECK(step->depth == 0);
  }
  {
    using Activity = StoredGpuActivityRow;
    const auto kernel = schema::read_one<schema::kTable<Activity>>(
        trace.db(), "WHERE launch_id IS NOT NULL ORDER BY start_ns LIMIT 1");
    REQUIRE(kernel);
    CHECK(kernel->kind == GpuActivityKind::kKernel);
    CHECK(kernel->correlation_id == 100);
    CHECK_FALSE(kernel->bytes);
    REQUIRE(kernel->launch_id);
    const auto launch = schema::read_one<schema::kTable<LaunchConfigRow>>(
        trace.db(), "WHERE id = " + std::to_string(*kernel->launch_id));
    REQUIRE(launch);
    CHECK(launch->grid == std::array<std::uint32_t, 3>{128, 2, 1});
    CHECK(launch->block[0] == 256);
    CHECK(launch->shared_bytes == 1024);
    CHECK(launch->registers == 64);
    // One launch configuration shared by all kernels.
    CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM launch_config") == 1);
    const auto copy = schema::read_one<schema::kTable<Activity>>(trace.db(), "WHERE kind = 2");
    REQUIRE(copy);
    CHECK(copy->bytes == 1 << 20);
    CHECK(copy->copy_kind == 1);
    CHECK_FALSE(copy->launch_id);
  }
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM api_call a JOIN gpu_activity g ON "
                       "g.correlation_id = a.correlation_id") ==
        fixture::kSteps * fixture::kKernelsPerStep);
  {
    const auto counters =
        schema::read_all<schema::kTable<CounterRow>>(trace.db(), "ORDER BY ts_ns");
    REQUIRE(counters.size() >= fixture::kSteps);
    for (int step = 0; step < fixture::kSteps; ++step)
      CHECK(counters[static_cast<std::size_t>(step)].value == 2.5 - step * 0.25);
  }
  {
    const auto queue =
        schema::read_one<schema::kTable<QueueSampleRow>>(trace.db(), "ORDER BY ts_ns DESC LIMIT 1");
    REQUIRE(queue);
    CHECK(queue->depth == 2);
    CHECK(queue->capacity == 4);
    CHECK(queue->role == QueueRole::kConsumer);
    CHECK(queue->thread_track == fixture::kMainThread);
    CHECK(queue->wait_ns == 2000);
  }
  {
    const auto collective =
        schema::read_one<schema::kTable<CollectiveRow>>(trace.db(), "ORDER BY step DESC");
    REQUIRE(collective);
    CHECK(collective->op == CollectiveOp::kAllReduce);
    CHECK(collective->bytes == 37672);
    CHECK(collective->dtype == "float32");
    CHECK(collective->first_param == 0);
    CHECK(collective->last_param == 1);
    CHECK(collective->step == fixture::kSteps - 1);
    CHECK(collective->dur_ns == 700'000);
  }
  const auto parameters = trace.parameters();
  REQUIRE(parameters.size() == 2);
  CHECK(parameters[0].name == "conv1.weight");
  CHECK(parameters[0].shape == "64,3,7,7");
  CHECK(parameters[0].bytes == 37632);
  CHECK(sql::query_int(trace.db(),
                       "SELECT count(*) FROM grad_ready g JOIN parameter p ON "
                       "p.idx = g.param_idx WHERE p.name = 'fc.bias'") == fixture::kSteps);
  CHECK(sql::query_int(trace.db(), "SELECT end_ns - start_ns FROM step WHERE step = 1") ==
        9'000'000);
  CHECK(sql::query_int(trace.db(), "SELECT arg FROM instant LIMIT 1") == 7);
}

TEST_CASE("a finished trace is one self-contained file", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  CHECK_FALSE(std::filesystem::exists(dir / "fixture.db-wal"));
  TraceReader trace(path);
  CHECK(sql::query_text(trace.db(), "PRAGMA journal_mode") == "delete");
}

TEST_CASE("the analyzer's searches are served by an index", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  TraceReader trace(path);
  const auto plan = [&](const std::string& query) { return sql::query_plan(trace.db(), query); };
  CHECK_THAT(plan("SELECT * FROM range WHERE track_id = 1 AND start_ns BETWEEN 0 AND 100"),
             Catch::Contains("USING PRIMARY KEY (track_id=? AND start_ns>? AND start_ns<?)"));
  CHECK_THAT(plan("SELECT * FROM gpu_activity WHERE track_id = 3 AND start_ns > 5"),
             Catch::Contains("USING PRIMARY KEY"));
  CHECK_THAT(plan("SELECT * FROM api_call WHERE correlation_id = 7"),
             Catch::Contains("api_call_by_correlation"));
  CHECK_THAT(plan("SELECT * FROM counter WHERE track_id = 4 AND ts_ns > 5"),
             Catch::Contains("counter_by_track_time"));
  CHECK_THAT(plan("SELECT * FROM collective WHERE step = 2"),
             Catch::Contains("collective_by_step"));
  CHECK_THAT(plan("SELECT * FROM grad_ready WHERE step = 2"),
             Catch::Contains("grad_ready_by_step"));
  CHECK_THAT(plan("SELECT * FROM step WHERE step = 2"), Catch::Contains("INTEGER PRIMARY KEY"));
}

TEST_CASE("TraceWriter never overwrites an existing file", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  const auto size = std::filesystem::file_size(path);
  CHECK_THROWS_WITH(TraceWriter(path), Catch::Contains("refusing to overwrite"));
  CHECK(std::filesystem::file_size(path) == size);
}
