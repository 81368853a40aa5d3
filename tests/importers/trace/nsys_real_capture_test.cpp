// Real Nsight Systems exports through `parity import`, `info` and `report`,
// run as the real binary. The exports (tests/importers/trace/data/nsys, whose
// README.md says where each comes from) were written by nsys 2022.2 to 2026.1
// on real machines and are kept gzip-compressed; each test unpacks its own.
// Every number asserted here was counted with sqlite3 from the export itself
// (queries beside each), not read off Parity's output; the CloverLeaf
// capture's also agree with hpcgroup/pipit's own dumps of it.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/sqlite.hpp"
#include "gunzip_fixture.hpp"
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
using parity::profiler::GpuActivityKind;
using parity::profiler::LaunchConfigRow;
using parity::profiler::RangeRow;
using parity::profiler::StoredGpuActivityRow;
using parity::profiler::TraceReader;
using parity::profiler::TrackId;
using parity::profiler::TrackKind;

namespace {

// data/nsys/NAME.sqlite.gz unpacked into `dir`.
fs::path unpack(const TempDir& dir, const std::string& name) {
  const fs::path packed = fs::path(PARITY_NSYS_REAL_CAPTURES) / (name + ".sqlite.gz");
  const fs::path out = dir / (name + ".sqlite");
  fixture::gunzip(packed, out);
  return out;
}

struct Imported {
  TempDir dir;
  fs::path sqlite, db;
  ProcessResult result;
};

void import_capture(Imported& out, const std::string& name) {
  out.sqlite = unpack(out.dir, name);
  out.db = out.dir / "run.db";
  out.result = run_process({PARITY_CLI, "import", out.sqlite.string(), "-o", out.db.string()});
  INFO("stdout: " << out.result.out << "\nstderr: " << out.result.err);
  REQUIRE(out.result.exit_code == 0);
}

struct Totals {
  std::int64_t count = 0, dur_ns = 0, bytes = 0;
};

Totals gpu_totals(TraceReader& trace, GpuActivityKind kind) {
  Totals totals;
  for (const auto& row : schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db()))
    if (row.kind == kind) {
      ++totals.count;
      totals.dur_ns += row.dur_ns;
      totals.bytes += row.bytes.value_or(0);
    }
  return totals;
}

std::map<ApiKind, std::int64_t> api_calls_by_kind(TraceReader& trace) {
  std::map<ApiKind, std::int64_t> calls;
  for (const auto& call : schema::read_all<schema::kTable<ApiCallRow>>(trace.db()))
    ++calls[call.kind];
  return calls;
}

// The ranges of a category named `name`: their count and total duration.
Totals ranges_named(TraceReader& trace, Category category, const std::string& name) {
  Totals totals;
  for (const auto& range : schema::read_all<schema::kTable<RangeRow>>(trace.db()))
    if (range.category == category && trace.string(range.name) == name) {
      ++totals.count;
      totals.dur_ns += range.dur_ns;
    }
  return totals;
}

std::int64_t ranges_of(TraceReader& trace, Category category) {
  std::int64_t n = 0;
  for (const auto& range : schema::read_all<schema::kTable<RangeRow>>(trace.db()))
    n += range.category == category;
  return n;
}

std::string track_name(const TraceReader& trace, TrackId id) {
  const auto* track = trace.track(id);
  return track ? trace.string(track->name) : "?";
}

// The name of each kernel's launch call, found through its correlation id.
std::map<std::string, std::int64_t> launches_of_kernels(TraceReader& trace) {
  std::map<std::int64_t, std::string> call_names;
  for (const auto& call : schema::read_all<schema::kTable<ApiCallRow>>(trace.db()))
    if (call.correlation_id) call_names[*call.correlation_id] = trace.string(call.name);
  std::map<std::string, std::int64_t> launches;
  for (const auto& row : schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db()))
    if (row.kind == GpuActivityKind::kKernel) {
      const auto call =
          row.correlation_id ? call_names.find(*row.correlation_id) : call_names.end();
      ++launches[call != call_names.end() ? call->second : "(none)"];
    }
  return launches;
}

}  // namespace

TEST_CASE("real nsys 2024.6 export (NVIDIA/Fuser, one H200): every row as sqlite3 counts it",
          "[e2e]") {
  Imported imported;
  import_capture(imported, "2024.6-fuser-report1");
  TraceReader trace(imported.db);

  // SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL
  const Totals kernels = gpu_totals(trace, GpuActivityKind::kKernel);
  CHECK(kernels.count == 19);
  CHECK(kernels.dur_ns == 393'539);
  // Kernels joined to CUPTI_ACTIVITY_KIND_RUNTIME on correlationId, by nameId.
  CHECK(launches_of_kernels(trace) ==
        std::map<std::string, std::int64_t>{
            {"cuLaunchKernel", 1}, {"cuLaunchKernelEx", 1}, {"cudaLaunchKernel", 17}});
  // CUPTI_ACTIVITY_KIND_RUNTIME by eventClass: 0 runtime, 1 driver.
  CHECK(api_calls_by_kind(trace) ==
        std::map<ApiKind, std::int64_t>{{ApiKind::kRuntime, 83}, {ApiKind::kDriver, 885}});
  // copyKind 2 (DtoH), 1 byte; one 4-byte memset; one synchronisation, syncType 2.
  const Totals copies = gpu_totals(trace, GpuActivityKind::kMemcpy);
  CHECK((copies.count == 1 && copies.bytes == 1 && copies.dur_ns == 1'632));
  const Totals sets = gpu_totals(trace, GpuActivityKind::kMemset);
  CHECK((sets.count == 1 && sets.bytes == 4));
  for (const auto& row : schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db())) {
    CHECK(track_name(trace, row.track) == "GPU 0 stream 7");
    if (row.kind == GpuActivityKind::kMemcpy) CHECK(trace.string(row.name) == "Memcpy DtoH");
    if (row.kind == GpuActivityKind::kSync) CHECK(trace.string(row.name) == "Stream wait sync");
  }
  // 12 distinct (grid, block, shared memory, registers) among the 19 launches.
  const auto launches = schema::read_all<schema::kTable<LaunchConfigRow>>(trace.db());
  CHECK(launches.size() == 12);

  // NVTX_EVENTS: 652 push/pop ranges (eventType 59) with inline text.
  CHECK(ranges_of(trace, Category::kUser) == 652);
  const Totals compile = ranges_named(trace, Category::kUser, "KernelExecutor::compileFusion");
  CHECK((compile.count == 1 && compile.dur_ns == 392'917'494));

  // TARGET_INFO_GPU, TARGET_INFO_SYSTEM_ENV, META_DATA_EXPORT, META_DATA_CAPTURE.
  CHECK(trace.meta_value("gpu.count") == "1");
  CHECK(trace.meta_value("gpu.0.name") == "NVIDIA H200");
  CHECK(trace.meta_value("gpu.0.sm_count") == "132");
  CHECK(trace.meta_value("gpu.0.compute_capability") == "9.0");
  CHECK(trace.meta_value("gpu.0.memory_bytes") == "150137864192");
  CHECK(trace.meta_value("host") == "e9ce1d13d1dc");
  CHECK(trace.meta_value("import.nsys.export.EXPORT_PRODUCT_VERSION") == "2024.6.2.25");
  // Listed twice in META_DATA_CAPTURE: both kept.
  CHECK(trace.meta_value("import.nsys.capture.CAPTURE_EVENT_TYPE") == "NvtxEvents, Cuda");
  CHECK_FALSE(trace.meta_value("import.nsys.capture.PROCESS_0:ENVIRONMENT_VARIABLE"));
  CHECK_THAT(imported.result.out,
             Catch::Contains("116 environment variables of the profiled processes"));
  // One process: PROCESSES names pid 30156 ./bin/test_matmul, ThreadNames its main thread.
  CHECK_FALSE(trace.meta_value("world_size"));
  bool main_thread = false;
  for (const auto& track : trace.tracks())
    main_thread |= trace.string(track.name) == "./bin/test_matmul [30156] / test_matmul";
  CHECK(main_thread);

  // Time 0 is the earliest event, NVTX's at session time 630846976 ns, so the
  // first kernel (start 770742793) is at 139895817 and time 0 is the session
  // start (utcEpochNs 1733877925987393218) plus 630846976.
  const auto first = schema::read_all<schema::kTable<StoredGpuActivityRow>>(
      trace.db(), "WHERE kind = 1 ORDER BY start_ns LIMIT 1");
  REQUIRE(first.size() == 1);
  CHECK(first[0].start_ns == 139'895'817);
  CHECK(first[0].dur_ns == 40'641);
  CHECK(trace.meta_value("clock_origin_unix_ns") == "1733877926618240194");

  const ProcessResult info = run_process({PARITY_CLI, "info", imported.db.string()});
  REQUIRE(info.exit_code == 0);
  CHECK_THAT(info.out, Catch::Contains("api_call                968"));
}

TEST_CASE(
    "real nsys 2025.1 export (NVIDIA/Fuser, pytest): a process that only calls the CUDA "
    "API is no rank",
    "[e2e]") {
  Imported imported;
  import_capture(imported, "2025.1-fuser-report1");
  TraceReader trace(imported.db);
  // Kernels, copies and sets all carry globalPid of pid 50556 (pytest); pid
  // 50922 (python3) has 2 CUPTI_ACTIVITY_KIND_RUNTIME rows and nothing else.
  CHECK_FALSE(trace.meta_value("world_size"));
  CHECK_FALSE(trace.meta_value("import.nsys.ranks"));
  CHECK_THAT(imported.result.out, !Catch::Contains("several processes"));
  std::map<std::string, std::int64_t> calls_per_track;
  for (const auto& call : schema::read_all<schema::kTable<ApiCallRow>>(trace.db()))
    ++calls_per_track[track_name(trace, call.track)];
  CHECK(calls_per_track["python3 [50922] / python3"] == 2);
  CHECK(calls_per_track["pytest [50556] / pytest"] == 976);  // and 12 on pt_thread_pool threads
  for (const auto& track : trace.tracks())
    CHECK_FALSE(trace.string(track.name).starts_with("rank "));
  // Both processes number their correlation ids from 1: every kernel must
  // still find its own process's launch.
  CHECK(launches_of_kernels(trace) == std::map<std::string, std::int64_t>{{"cuLaunchKernel", 6},
                                                                          {"cuLaunchKernelEx", 3},
                                                                          {"cudaLaunchKernel", 9}});

  const Totals kernels = gpu_totals(trace, GpuActivityKind::kKernel);
  CHECK((kernels.count == 18 && kernels.dur_ns == 10'167'602));
  // copyKind 1 (HtoD) twice, 394002434 bytes; 8 (DtoD) once, 62914560 bytes.
  const Totals copies = gpu_totals(trace, GpuActivityKind::kMemcpy);
  CHECK((copies.count == 3 && copies.bytes == 456'916'994));
  CHECK(ranges_of(trace, Category::kUser) == 13'513);
  const Totals compile =
      ranges_named(trace, Category::kUser, "FusionKernelRuntime::compileFusionParallel");
  CHECK((compile.count == 10 && compile.dur_ns == 1'795'032'547));
  CHECK(trace.meta_value("import.nsys.export.EXPORT_PRODUCT_VERSION") == "2025.1.1.110");
  // Session start 1741793819042497997 + the first runtime call at 1719717421.
  CHECK(trace.meta_value("clock_origin_unix_ns") == "1741793820762215418");
}

TEST_CASE(
    "real nsys 2022.2 export (pipit saxpy, MPI rank 0): EXPORT_META_DATA, textId names, "
    "backtraces",
    "[e2e]") {
  Imported imported;
  import_capture(imported, "2022.2-pipit-saxpy-mpi-cuda");
  TraceReader trace(imported.db);
  const Totals kernels = gpu_totals(trace, GpuActivityKind::kKernel);
  CHECK((kernels.count == 5 && kernels.dur_ns == 88'573'480));
  for (const auto& row : schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db()))
    if (row.kind == GpuActivityKind::kKernel)
      CHECK(trace.string(row.name) == "saxpy(double *, double *, double *, double, int)");
  // copyKind 1: 10 copies of 2621440000 bytes in all; 2: 5 of 1310720000.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> copies;  // count, bytes
  for (const auto& row : schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db()))
    if (row.kind == GpuActivityKind::kMemcpy) {
      auto& [count, bytes] = copies[trace.string(row.name)];
      ++count;
      bytes += row.bytes.value_or(0);
    }
  CHECK(copies == std::map<std::string, std::pair<std::int64_t, std::int64_t>>{
                      {"Memcpy DtoH", {5, 1'310'720'000}}, {"Memcpy HtoD", {10, 2'621'440'000}}});
  CHECK(launches_of_kernels(trace) == std::map<std::string, std::int64_t>{{"cudaLaunchKernel", 5}});
  // eventClass 0: 56, 1: 1, 67 (backtraces): 38.
  CHECK(api_calls_by_kind(trace) ==
        std::map<ApiKind, std::int64_t>{{ApiKind::kRuntime, 56}, {ApiKind::kDriver, 1}});
  CHECK_THAT(imported.result.out, Catch::Contains("38 CUDA backtraces"));
  // The MPI ranges have no text, only a textId into StringIds.
  const Totals init = ranges_named(trace, Category::kUser, "MPI_Init");
  CHECK((init.count == 1 && init.dur_ns == 645'678'983));
  const Totals sends = ranges_named(trace, Category::kUser, "MPI_Send");
  CHECK((sends.count == 10 && sends.dur_ns == 136'342'959));
  CHECK(ranges_of(trace, Category::kUser) == 22);
  for (const auto& range : schema::read_all<schema::kTable<RangeRow>>(trace.db()))
    if (trace.string(range.name) == "MPI_Init")
      CHECK(track_name(trace, range.track) == "./saxpy-mpi-cuda [1230493] / MPI Rank 0");
  // The 2022 name of META_DATA_EXPORT is read, not counted as an unread table.
  CHECK(trace.meta_value("import.nsys.export.EXPORT_PRODUCT_VERSION") == "2022.2.1.31");
  CHECK(trace.meta_value("import.nsys.export.EXPORT_SCHEMA_VERSION") == "2.9.1");
  CHECK_THAT(imported.result.out, !Catch::Contains("EXPORT_META_DATA"));
  CHECK(trace.meta_value("gpu.0.name") == "NVIDIA A100-SXM4-40GB");
  CHECK(trace.meta_value("gpu.0.sm_count") == "108");
  CHECK(trace.meta_value("host") == "nid001608");
  // Session start 1687813257637297504 + the first NVTX range at 65117824.
  CHECK(trace.meta_value("clock_origin_unix_ns") == "1687813257702415328");
}

TEST_CASE(
    "real nsys 2024.5 export (pipit CloverLeaf, 4 GPUs): OS runtime calls and "
    "synchronisations without a stream",
    "[e2e]") {
  Imported imported;
  import_capture(imported, "2024.5-pipit-cloverleaf-cuda");
  TraceReader trace(imported.db);
  const Totals kernels = gpu_totals(trace, GpuActivityKind::kKernel);
  CHECK((kernels.count == 1'312 && kernels.dur_ns == 294'404'540));
  const Totals copies = gpu_totals(trace, GpuActivityKind::kMemcpy);
  CHECK((copies.count == 279 && copies.bytes == 225'116'952 && copies.dur_ns == 9'390'923));
  CHECK(launches_of_kernels(trace) ==
        std::map<std::string, std::int64_t>{{"cudaLaunchKernel", 1'312}});
  CHECK(api_calls_by_kind(trace) ==
        std::map<ApiKind, std::int64_t>{{ApiKind::kRuntime, 3'047}, {ApiKind::kDriver, 1}});
  // All 1312 synchronisations have streamId 4294967295 (CUPTI's "no stream").
  const Totals syncs = gpu_totals(trace, GpuActivityKind::kSync);
  CHECK((syncs.count == 1'312 && syncs.dur_ns == 301'136'696));
  for (const auto& row : schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db())) {
    const auto* track = trace.track(row.track);
    REQUIRE(track != nullptr);
    if (row.kind == GpuActivityKind::kSync) {
      CHECK(track->kind == TrackKind::kGpuDevice);
      CHECK(trace.string(track->name) == "cuda-cloverleaf [1701896] / GPU 0");
    } else {
      CHECK(trace.string(track->name) == "GPU 0 stream 7");
    }
  }
  // OSRT_API: 1828 rows of eventClass 27 (calls), 3 of 31/32 (nsys's markers).
  CHECK(ranges_of(trace, Category::kApi) == 1'828);
  const Totals ioctl = ranges_named(trace, Category::kApi, "ioctl");
  CHECK((ioctl.count == 1'253 && ioctl.dur_ns == 281'949'575));
  CHECK(ranges_named(trace, Category::kApi, "OS runtime libraries profiling started").count == 0);
  CHECK_THAT(imported.result.out, Catch::Contains("1 OSRT_API rows of event class 31"));
  CHECK_THAT(imported.result.out, Catch::Contains("2 OSRT_API rows of event class 32"));
  // No NVTX_EVENTS table: nsys 2024+ leaves empty tables out.
  CHECK(ranges_of(trace, Category::kUser) == 0);
  CHECK(trace.meta_value("gpu.count") == "4");
  for (const char* gpu : {"0", "1", "2", "3"})
    CHECK(trace.meta_value(std::string("gpu.") + gpu + ".name") == "NVIDIA A100-SXM4-80GB");
  CHECK_FALSE(trace.meta_value("world_size"));  // one process, on GPU 0
  // Session start 1696392839587175550 + the first OS runtime call at 78291151.
  CHECK(trace.meta_value("clock_origin_unix_ns") == "1696392839665466701");
}

TEST_CASE("real nsys 2026.1 export without CUPTI tables (JACC.jl) is refused clearly", "[e2e]") {
  TempDir dir;
  const fs::path sqlite = unpack(dir, "2026.1-jacc-cpu-only");
  const fs::path db = dir / "run.db";
  check_refused(run_process({PARITY_CLI, "import", sqlite.string(), "-o", db.string()}),
                "an Nsight Systems export with no events Parity reads");
  CHECK_FALSE(fs::exists(db));
  check_refused(run_process({PARITY_CLI, "report", sqlite.string()}),
                "no CUDA kernels, copies or API calls (CUPTI_ACTIVITY_KIND_* tables)");
}

TEST_CASE(
    "parity report on real nsys exports: refused without step ranges, right once one is "
    "added",
    "[e2e]") {
  // None of the captures marks its steps with NVTX: report says so.
  for (const char* name : {"2022.2-pipit-saxpy-mpi-cuda", "2024.5-pipit-cloverleaf-cuda",
                           "2024.6-fuser-report1", "2025.1-fuser-report1"}) {
    INFO(name);
    TempDir dir;
    const fs::path sqlite = unpack(dir, name);
    const ProcessResult refused = run_process({PARITY_CLI, "report", sqlite.string()});
    check_refused(refused, "the trace holds no training steps");
    // The hint says how to mark steps in an nsys capture.
    CHECK(refused.err.find("wrap each iteration in an NVTX range") != std::string::npos);
  }
  // The Fuser capture with one "step 1" push/pop range around all of it, on
  // the thread of its CUDA calls: the report's kernel table is the export's.
  TempDir dir;
  const fs::path sqlite = unpack(dir, "2024.6-fuser-report1");
  {
    parity::profiler::sql::Database db(sqlite, parity::profiler::sql::Database::Mode::kCreate);
    db.exec(
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) "
        "SELECT min(start) - 1, max(end) + 1, 59, 'step 1', "
        "(SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1) FROM ("
        "SELECT start, end FROM NVTX_EVENTS UNION ALL "
        "SELECT start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL "
        "SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
        "SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
        "SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET UNION ALL "
        "SELECT start, end FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)");
  }
  const fs::path out = dir / "report";
  const ProcessResult report = run_process({PARITY_CLI, "report", sqlite.string(), "--format",
                                            "json", "-o", out.string(), "--set", "warmup_steps=0"});
  INFO(report.err);
  REQUIRE(report.exit_code <= 1);  // 1: a finding (launch-bound) reached --fail-on
  std::ifstream in(out / "report.json");
  const json document = json::parse(in);
  const json& kernels = document["ranks"][0]["operators"]["kernels"];
  // 15 distinct demangledName among the 19 kernels.
  REQUIRE(kernels.size() == 15);
  double total_ns = 0;
  std::int64_t count = 0;
  for (const json& kernel : kernels) {
    total_ns += kernel["total_ns"].get<double>();
    count += kernel["count"].get<std::int64_t>();
  }
  CHECK(total_ns == 393'539);
  CHECK(count == 19);
  // The longest: shortName nvfuser_none_f0_c0_r0_g0, 135137 ns, launched by a
  // cuLaunchKernel call of 8650 ns.
  CHECK(kernels[0]["name"].get<std::string>().starts_with("<unnamed>::nvfuser_none_f0_c0_r0_g0("));
  CHECK(kernels[0]["total_ns"].get<double>() == 135'137);
  CHECK(kernels[0]["launch"]["mean_ns"].get<double>() == 8'650);
}
