#include <catch2/catch.hpp>

#include "parity/core/error.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "parity/profiler/trace_writer.hpp"
#include "temp_dir.hpp"
#include "trace_fixture.hpp"

using namespace parity::profiler;
using sql::Statement;

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
    Statement op(trace.db(), "SELECT track_id, start_ns, dur_ns, name_id, category, depth, "
                             "parent_id, arg FROM range WHERE category = 4 ORDER BY start_ns LIMIT 1");
    REQUIRE(op.step());
    CHECK(op.column_int(0) == fixture::kMainThread);
    CHECK(op.column_int(1) == 1'110'000);
    CHECK(op.column_int(2) == 600'000);
    CHECK(op.column_int(3) == 9);
    CHECK(op.column_int(5) == 2);
    CHECK(op.column_int(6) == 2);  // the first layer range
    CHECK(op.column_is_null(7));
    Statement step(trace.db(), "SELECT arg, parent_id, depth FROM range WHERE category = 1 "
                               "ORDER BY start_ns DESC LIMIT 1");
    REQUIRE(step.step());
    CHECK(step.column_int(0) == fixture::kSteps - 1);
    CHECK(step.column_is_null(1));
    CHECK(step.column_int(2) == 0);
  }
  {
    Statement kernel(trace.db(),
                     "SELECT g.kind, g.correlation_id, g.bytes, l.grid_x, l.grid_y, l.grid_z, "
                     "l.block_x, l.shared_bytes, l.registers FROM gpu_activity g JOIN "
                     "launch_config l ON l.id = g.launch_id ORDER BY g.start_ns LIMIT 1");
    REQUIRE(kernel.step());
    CHECK(kernel.column_int(0) == static_cast<int>(GpuActivityKind::kKernel));
    CHECK(kernel.column_int(1) == 100);
    CHECK(kernel.column_is_null(2));
    CHECK(kernel.column_int(3) == 128);
    CHECK(kernel.column_int(4) == 2);
    CHECK(kernel.column_int(5) == 1);
    CHECK(kernel.column_int(6) == 256);
    CHECK(kernel.column_int(7) == 1024);
    CHECK(kernel.column_int(8) == 64);
    // One launch configuration shared by all kernels.
    CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM launch_config") == 1);
    Statement copy(trace.db(), "SELECT bytes, copy_kind, launch_id FROM gpu_activity WHERE kind = 2");
    REQUIRE(copy.step());
    CHECK(copy.column_int(0) == 1 << 20);
    CHECK(copy.column_int(1) == 1);
    CHECK(copy.column_is_null(2));
  }
  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM api_call a JOIN gpu_activity g ON "
                                   "g.correlation_id = a.correlation_id") ==
        fixture::kSteps * fixture::kKernelsPerStep);
  {
    Statement counter(trace.db(), "SELECT value FROM counter ORDER BY ts_ns");
    for (int step = 0; step < fixture::kSteps; ++step) {
      REQUIRE(counter.step());
      CHECK(counter.column_double(0) == 2.5 - step * 0.25);
    }
  }
  {
    Statement queue(trace.db(), "SELECT depth, capacity, role, thread_track_id, wait_ns FROM "
                                "queue_sample ORDER BY ts_ns DESC LIMIT 1");
    REQUIRE(queue.step());
    CHECK(queue.column_int(0) == 2);
    CHECK(queue.column_int(1) == 4);
    CHECK(queue.column_int(2) == static_cast<int>(QueueRole::kConsumer));
    CHECK(queue.column_int(3) == fixture::kMainThread);
    CHECK(queue.column_int(4) == 2000);
  }
  {
    Statement collective(trace.db(), "SELECT op, bytes, dtype, bucket, first_param, last_param, "
                                     "rank, step, dur_ns FROM collective ORDER BY step DESC");
    REQUIRE(collective.step());
    CHECK(collective.column_int(0) == static_cast<int>(CollectiveOp::kAllReduce));
    CHECK(collective.column_int(1) == 37672);
    CHECK(collective.column_text(2) == "float32");
    CHECK(collective.column_int(4) == 0);
    CHECK(collective.column_int(5) == 1);
    CHECK(collective.column_int(7) == fixture::kSteps - 1);
    CHECK(collective.column_int(8) == 700'000);
  }
  const auto parameters = trace.parameters();
  REQUIRE(parameters.size() == 2);
  CHECK(parameters[0].name == "conv1.weight");
  CHECK(parameters[0].shape == "64,3,7,7");
  CHECK(parameters[0].bytes == 37632);
  CHECK(sql::query_int(trace.db(), "SELECT count(*) FROM grad_ready g JOIN parameter p ON "
                                   "p.idx = g.param_idx WHERE p.name = 'fc.bias'") == fixture::kSteps);
  CHECK(sql::query_int(trace.db(), "SELECT end_ns - start_ns FROM step WHERE step = 1") == 9'000'000);
  CHECK(sql::query_int(trace.db(), "SELECT arg FROM instant LIMIT 1") == 7);
}

TEST_CASE("a finished trace is one self-contained file", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  CHECK_FALSE(std::filesystem::exists(dir / "fixture.db-wal"));
  TraceReader trace(path);
  Statement mode(trace.db(), "PRAGMA journal_mode");
  REQUIRE(mode.step());
  CHECK(mode.column_text(0) == "delete");
}

TEST_CASE("the analyzer's searches are served by an index", "[unit]") {
  TempDir dir;
  const auto path = dir / "fixture.db";
  fixture::write_sample_trace(path);
  TraceReader trace(path);
  const auto plan = [&](const std::string& query) {
    Statement explain(trace.db(), "EXPLAIN QUERY PLAN " + query);
    std::string text;
    while (explain.step()) text += explain.column_text(3) + "\n";
    return text;
  };
  CHECK_THAT(plan("SELECT * FROM range WHERE track_id = 1 AND start_ns BETWEEN 0 AND 100"),
             Catch::Contains("USING PRIMARY KEY (track_id=? AND start_ns>? AND start_ns<?)"));
  CHECK_THAT(plan("SELECT * FROM gpu_activity WHERE track_id = 3 AND start_ns > 5"),
             Catch::Contains("USING PRIMARY KEY"));
  CHECK_THAT(plan("SELECT * FROM api_call WHERE correlation_id = 7"),
             Catch::Contains("api_call_by_correlation"));
  CHECK_THAT(plan("SELECT * FROM counter WHERE track_id = 4 AND ts_ns > 5"),
             Catch::Contains("counter_by_track_time"));
  CHECK_THAT(plan("SELECT * FROM collective WHERE step = 2"), Catch::Contains("collective_by_step"));
  CHECK_THAT(plan("SELECT * FROM grad_ready WHERE step = 2"), Catch::Contains("grad_ready_by_step"));
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
