// Nsight Systems SQLite exports through `parity import`, `info`, `report` and
// `diff-trace`, run as the real binary. The exports are made at test time by
// nsys_fixture.py from the documented schema (no nsys runs here), in a modern
// and an old layout; the generator also writes what it put in them
// (OUT.expected.json), which every check below holds the trace against.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "process.hpp"
#include "refusal.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
namespace schema = parity::profiler::schema;
using nlohmann::json;
using parity::profiler::ApiCallRow;
using parity::profiler::ApiKind;
using parity::profiler::Category;
using parity::profiler::CollectiveOp;
using parity::profiler::CollectiveRow;
using parity::profiler::GpuActivityKind;
using parity::profiler::InstantRow;
using parity::profiler::LaunchConfigRow;
using parity::profiler::RangeRow;
using parity::profiler::StepRow;
using parity::profiler::StoredGpuActivityRow;
using parity::profiler::TraceReader;
using parity::profiler::TrackId;

namespace {

constexpr std::int64_t kRank1Correlation = std::int64_t(1) << 32;

struct Export {
  TempDir dir;
  fs::path sqlite;
  json expected;
};

// Writes an export with nsys_fixture.py and its options.
void make_export(Export& out, const std::vector<std::string>& options = {}) {
  out.sqlite = out.dir / "report.sqlite";
  std::vector<std::string> argv{PARITY_PYTHON, PARITY_NSYS_FIXTURE, out.sqlite.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  const ProcessResult made = run_process(argv);
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  std::ifstream in(out.sqlite.string() + ".expected.json");
  out.expected = json::parse(in);
}

struct Imported : Export {
  fs::path db;
  ProcessResult result;
};

void import_export(Imported& out, const std::vector<std::string>& options = {}) {
  make_export(out, options);
  out.db = out.dir / "run.db";
  out.result = run_process({PARITY_CLI, "import", out.sqlite.string(), "-o", out.db.string()});
  INFO("stdout: " << out.result.out << "\nstderr: " << out.result.err);
  REQUIRE(out.result.exit_code == 0);
}

std::string variant_of(int i) { return i == 0 ? "modern" : "old"; }

std::string track_name(const TraceReader& trace, TrackId id) {
  const auto* track = trace.track(id);
  return track ? trace.string(track->name) : "?";
}

std::vector<StoredGpuActivityRow> activities(TraceReader& trace, GpuActivityKind kind) {
  std::vector<StoredGpuActivityRow> out;
  for (const auto& row : schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db()))
    if (row.kind == kind) out.push_back(row);
  return out;
}

}  // namespace

TEST_CASE("nsys import: kernels on a track per process and stream, with their launch", "[e2e]") {
  for (int variant = 0; variant < 2; ++variant) {
    INFO("variant " << variant_of(variant));
    Imported imported;
    import_export(imported, {"--variant", variant_of(variant)});
    TraceReader trace(imported.db);
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> per_stream;  // count, total
    const auto kernels = activities(trace, GpuActivityKind::kKernel);
    for (const auto& kernel : kernels) {
      const auto* track = trace.track(kernel.track);
      REQUIRE(track != nullptr);
      CHECK(track->device == 0);
      auto& [count, total] = per_stream[std::to_string(track->pid.value_or(-1)) + " " +
                                        std::to_string(track->stream.value_or(-1))];
      ++count;
      total += kernel.dur_ns;
    }
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> expected;
    for (const auto& [key, value] : imported.expected["kernels"].items())
      expected[key] = {value[0].get<std::int64_t>(), value[1].get<std::int64_t>()};
    CHECK(per_stream == expected);

    const auto launches = schema::read_all<schema::kTable<LaunchConfigRow>>(trace.db());
    REQUIRE(launches.size() == 1);
    CHECK(launches[0].grid == std::array<std::uint32_t, 3>{64, 2, 1});
    CHECK(launches[0].block == std::array<std::uint32_t, 3>{256, 1, 1});
    CHECK(launches[0].shared_bytes == 1024 + 2048);
    CHECK(launches[0].registers == 32);
    CHECK_THAT(imported.result.out, Catch::Contains(std::to_string(kernels.size()) + " kernels"));
  }
}

TEST_CASE("nsys import: each kernel finds its cudaLaunchKernel in its own process", "[e2e]") {
  Imported imported;
  import_export(imported);
  TraceReader trace(imported.db);
  std::map<std::int64_t, ApiCallRow> calls;
  for (const auto& call : schema::read_all<schema::kTable<ApiCallRow>>(trace.db()))
    if (call.correlation_id) CHECK(calls.emplace(*call.correlation_id, call).second);
  std::int64_t joined = 0;
  for (const auto& kernel : activities(trace, GpuActivityKind::kKernel)) {
    REQUIRE(kernel.correlation_id);
    const auto call = calls.find(*kernel.correlation_id);
    REQUIRE(call != calls.end());
    CHECK(trace.string(call->second.name) == "cudaLaunchKernel");  // without nsys's _v7000
    CHECK(call->second.kind == ApiKind::kRuntime);
    CHECK(trace.track(call->second.track)->pid == trace.track(kernel.track)->pid);
    CHECK(call->second.start_ns + 50'000 == kernel.start_ns);
    // Rank 1's ids, which repeat rank 0's in nsys, are moved past 2^32.
    CHECK((*kernel.correlation_id >= kRank1Correlation) ==
          (trace.track(kernel.track)->pid == 2000));
    ++joined;
  }
  CHECK(joined == imported.expected["launches"].get<std::int64_t>());
  std::int64_t driver = 0;
  for (const auto& [id, call] : calls)
    if (call.kind == ApiKind::kDriver) {
      CHECK(trace.string(call.name) == "cuMemsetD8Async");
      ++driver;
    }
  CHECK(driver == 4);
}

TEST_CASE("nsys import: NVTX ranges named like steps are the steps", "[e2e]") {
  for (int variant = 0; variant < 2; ++variant) {
    INFO("variant " << variant_of(variant));
    Imported imported;
    import_export(imported, {"--variant", variant_of(variant)});
    TraceReader trace(imported.db);
    const std::int64_t earliest = imported.expected["earliest"];
    CHECK(earliest < 0);  // NCCL's init range, begun before the capture
    // Rank 0's ranges ("ProfilerStep#N") come first; both ranks' are step ranges.
    const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "ORDER BY step");
    REQUIRE(steps.size() == 2);
    std::int64_t step_ranges = 0;
    for (const auto& range : schema::read_all<schema::kTable<RangeRow>>(trace.db()))
      if (range.category == Category::kStep) {
        ++step_ranges;
        CHECK((range.arg == 1 || range.arg == 2));
      }
    CHECK(step_ranges == 4);
    for (const auto& step : imported.expected["steps"]) {
      if (step[0] != 0) continue;
      const StepRow& row = steps.at(step[1].get<std::size_t>() - 1);
      CHECK(row.step == step[1]);
      CHECK(row.start_ns == step[2].get<std::int64_t>() - earliest);
      CHECK(row.end_ns == step[3].get<std::int64_t>() - earliest);
      CHECK(track_name(trace, row.track) == "rank 0 python3 [1000] / python3");
    }
    CHECK_THAT(imported.result.out, Catch::Contains("4 steps (NVTX ranges named like steps)"));
  }
}

TEST_CASE("nsys import: memcpy and memset with bytes and copy kind", "[e2e]") {
  Imported imported;
  import_export(imported);
  TraceReader trace(imported.db);
  const auto copies = activities(trace, GpuActivityKind::kMemcpy);
  const auto sets = activities(trace, GpuActivityKind::kMemset);
  REQUIRE(copies.size() == imported.expected["memcpy"].size());
  REQUIRE(sets.size() == imported.expected["memset"].size());
  std::multiset<std::int64_t> copied, expected_copied;
  for (const auto& copy : copies) {
    CHECK(copy.copy_kind == 1);
    CHECK(trace.string(copy.name) == "Memcpy HtoD");
    CHECK(copy.dur_ns == 4'000);
    copied.insert(copy.bytes.value_or(-1));
  }
  for (const auto& row : imported.expected["memcpy"])
    expected_copied.insert(row[1].get<std::int64_t>());
  CHECK(copied == expected_copied);
  for (const auto& set : sets) {
    CHECK(set.bytes == 1024);
    CHECK(set.dur_ns == 1'000);
  }
  const auto syncs = activities(trace, GpuActivityKind::kSync);
  REQUIRE(syncs.size() == 4);
  CHECK(trace.string(syncs[0].name) == "Stream synchronize");  // ENUM_CUPTI_SYNC_TYPE's label
}

TEST_CASE("nsys import: NCCL kernels of both namings are collectives of their rank", "[e2e]") {
  for (int variant = 0; variant < 2; ++variant) {
    INFO("variant " << variant_of(variant));
    Imported imported;
    import_export(imported, {"--variant", variant_of(variant)});
    TraceReader trace(imported.db);
    const std::int64_t earliest = imported.expected["earliest"];
    const auto rows =
        schema::read_all<schema::kTable<CollectiveRow>>(trace.db(), "ORDER BY rank, start_ns");
    const auto& expected = imported.expected["collectives"];
    REQUIRE(rows.size() == expected.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i].op == CollectiveOp::kAllReduce);
      CHECK(rows[i].rank == expected[i][0]);
      CHECK(rows[i].start_ns == expected[i][1].get<std::int64_t>() - earliest);
      CHECK(rows[i].dur_ns == expected[i][2]);
      CHECK(rows[i].bytes == 0);  // NCCL kernels carry no sizes
    }
    CHECK_THAT(imported.result.out, Catch::Contains("collectives without their sizes"));
  }
}

TEST_CASE("nsys import: GPUs, host, export schema and clock into meta", "[e2e]") {
  Imported modern;
  import_export(modern);
  TraceReader trace(modern.db);
  CHECK(trace.meta_value("gpu.0.name") == "NVIDIA H200");
  CHECK(trace.meta_value("gpu.0.compute_capability") == "9.0");
  CHECK(trace.meta_value("gpu.0.sm_count") == "132");
  CHECK(trace.meta_value("host") == "gpu-node-7");
  CHECK(trace.meta_value("import.nsys.export.EXPORT_SCHEMA_VERSION") == "3.28.1");
  CHECK(trace.meta_value("import.source_format") == "Nsight Systems SQLite export");
  CHECK(trace.meta_value("world_size") == "2");
  CHECK(trace.meta_value("import.nsys.ranks") == "rank 0: python3 [1000]; rank 1: python3 [2000]");
  const std::int64_t origin = modern.expected["session_start_unix_ns"].get<std::int64_t>() +
                              modern.expected["earliest"].get<std::int64_t>();
  CHECK(trace.meta_value("clock_origin_unix_ns") == std::to_string(origin));

  Imported old;
  import_export(old, {"--variant", "old"});
  TraceReader old_trace(old.db);
  CHECK(old_trace.meta_value("gpu.0.name") == "Tesla V100-SXM2-16GB");  // TARGET_INFO_CUDA_GPU
  CHECK(old_trace.meta_value("gpu.0.compute_capability") == "7.0");
  CHECK(old_trace.meta_value("gpu.0.sm_count") == "80");
}

TEST_CASE("nsys import: OS runtime calls, marks, start/end ranges and what is not read", "[e2e]") {
  Imported imported;
  import_export(imported);
  TraceReader trace(imported.db);
  std::int64_t os_calls = 0, start_end = 0;
  for (const auto& range : schema::read_all<schema::kTable<RangeRow>>(trace.db())) {
    const std::string name = trace.string(range.name);
    if (name == "pthread_cond_wait") {
      CHECK(range.category == Category::kApi);
      CHECK(track_name(trace, range.track).ends_with("/ pt_data_worker"));
      CHECK(range.dur_ns == 300'000);
      ++os_calls;
    }
    if (name.starts_with("epoch 0")) {
      CHECK(track_name(trace, range.track).ends_with("/ NVTX start/end ranges"));
      CHECK(range.dur_ns == 2'000'000);
      ++start_end;
    }
  }
  CHECK(os_calls == 4);
  CHECK(start_end == 2);
  const auto marks = schema::read_all<schema::kTable<InstantRow>>(trace.db());
  REQUIRE(marks.size() == 2);
  CHECK(trace.string(marks[0].name) == "checkpoint");
  const std::string& out = imported.result.out;
  CHECK_THAT(out, Catch::Contains("4 CUDA backtraces (event class 67"));
  CHECK_THAT(out, Catch::Contains("3 rows of table SCHED_EVENTS (not read by Parity)"));
  CHECK_THAT(out, Catch::Contains("no CPU operator ranges"));
}

TEST_CASE("nsys import: one process keeps its ids and plain track names", "[e2e]") {
  Imported imported;
  import_export(imported, {"--processes", "1"});
  TraceReader trace(imported.db);
  for (const auto& kernel : activities(trace, GpuActivityKind::kKernel))
    CHECK(kernel.correlation_id < 100);
  CHECK_FALSE(trace.meta_value("world_size"));
  for (const auto& track : trace.tracks())
    CHECK_FALSE(trace.string(track.name).starts_with("rank "));
  CHECK_THAT(imported.result.out, Catch::Contains("6 kernels"));
}

TEST_CASE("nsys exports are read by report and info through the cache beside them", "[e2e]") {
  Export made;
  make_export(made);
  const fs::path cache = made.sqlite.string() + ".parity.db";
  const fs::path out = made.dir / "report";
  const ProcessResult report = run_process({PARITY_CLI, "report", made.sqlite.string(), "--format",
                                            "json", "-o", out.string(), "--set", "warmup_steps=0"});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  REQUIRE(fs::exists(cache));
  std::ifstream in(out / "report.json");
  const json document = json::parse(in);
  std::map<std::string, std::int64_t> totals;
  for (const auto& kernel : document["ranks"][0]["operators"]["kernels"])
    totals[kernel["name"]] = static_cast<std::int64_t>(kernel["total_ns"].get<double>());
  CHECK(totals == made.expected["kernel_totals"].get<std::map<std::string, std::int64_t>>());

  // The text report names the heaviest kernel first.
  const ProcessResult text = run_process({PARITY_CLI, "report", made.sqlite.string()});
  REQUIRE(text.exit_code == 0);
  const auto table = text.out.find("GPU kernels");
  REQUIRE(table != std::string::npos);
  CHECK(text.out.find("void gemm_kernel<float>", table) <
        text.out.find("relu_kernel(float*)", table));

  // The cache is reused while the export is unchanged.
  const auto written = fs::last_write_time(cache);
  REQUIRE(run_process({PARITY_CLI, "info", made.sqlite.string()}).exit_code == 0);
  CHECK(fs::last_write_time(cache) == written);
  // ... and made again once the export changes.
  fs::last_write_time(made.sqlite, fs::last_write_time(made.sqlite) + std::chrono::hours(1));
  REQUIRE(run_process({PARITY_CLI, "info", made.sqlite.string()}).exit_code == 0);
  CHECK(fs::last_write_time(cache) != written);

  Export other;
  make_export(other, {"--variant", "old"});
  const ProcessResult diff =
      run_process({PARITY_CLI, "diff-trace", made.sqlite.string(), other.sqlite.string()});
  INFO(diff.err);
  CHECK((diff.exit_code == 0 || diff.exit_code == 1));
  CHECK_THAT(diff.out, Catch::Contains("gemm_kernel"));
}

TEST_CASE("nsys import refuses damaged exports and other SQLite files clearly", "[e2e]") {
  const auto refused = [](Export& made, const std::string& message) {
    const fs::path out = made.dir / "run.db";
    const ProcessResult result =
        run_process({PARITY_CLI, "import", made.sqlite.string(), "-o", out.string()});
    check_refused(result, message);
    CHECK_THAT(result.err, Catch::Contains(made.sqlite.string()));
    CHECK_THAT(result.err, Catch::Contains("hint:"));
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(out.string() + ".partial"));
  };
  SECTION("truncated") {
    Export made;
    make_export(made);
    fs::resize_file(made.sqlite, fs::file_size(made.sqlite) / 2);
    refused(made, "database disk image is malformed");
  }
  SECTION("a damaged table") {
    Export made;
    make_export(made, {"--corrupt-table", "CUPTI_ACTIVITY_KIND_KERNEL"});
    refused(made, "cannot read table CUPTI_ACTIVITY_KIND_KERNEL");
  }
  SECTION("SQLite without StringIds") {
    Export made;
    make_export(made, {"--drop-table", "StringIds"});
    refused(made, "neither a Parity trace nor an Nsight Systems export");
  }
  SECTION("a column the importer needs") {
    Export made;
    make_export(made, {"--drop-column", "CUPTI_ACTIVITY_KIND_KERNEL.deviceId"});
    refused(made, "table CUPTI_ACTIVITY_KIND_KERNEL has no column deviceId");
  }
}
