// `parity import`, `info` and `report` on REAL profiler output committed under
// data/mindspore/ (README.md there gives each file's origin and licence):
// MindSpore 1.0 (mindinsight run_2) and 0.5-0.6 (run_1) profiler/ folders and
// their timeline JSONs, and a torch_npu ASCEND_PROFILER_OUTPUT rank folder, the
// layout MindSpore 2.3+ writes too. Every number held against here was read
// from the source files by a separate script (python3 csv/json), not by Parity.
// Files over 50 KB are committed gzipped and unpacked into a temp dir first.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "gunzip_fixture.hpp"
#include "parity/profiler/trace_reader.hpp"
#include "process.hpp"
#include "refusal.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
namespace schema = parity::profiler::schema;
using parity::profiler::Category;
using parity::profiler::CollectiveOp;
using parity::profiler::CollectiveRow;
using parity::profiler::GpuActivityKind;
using parity::profiler::QueueSampleRow;
using parity::profiler::RangeRow;
using parity::profiler::StepRow;
using parity::profiler::StoredGpuActivityRow;
using parity::profiler::TraceReader;

namespace {

const fs::path kData = PARITY_MINDSPORE_REAL_CAPTURES;

ProcessResult parity_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PARITY_CLI);
  return run_process(args);
}

// The fixture folder `name` as the profiler wrote it: copied into `dir`, each
// "<file>.gz" unpacked to "<file>".
fs::path unpack(const TempDir& dir, const std::string& name) {
  const fs::path root = kData / name;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    fs::path target = dir.path() / name / entry.path().lexically_relative(root);
    fs::create_directories(target.parent_path());
    if (target.extension() == ".gz")
      fixture::gunzip(entry.path(), target.replace_extension());
    else
      fs::copy_file(entry.path(), target);
  }
  return dir.path() / name;
}

std::string import_ok(const fs::path& in, const fs::path& out) {
  const ProcessResult result = parity_cli({"import", in.string(), "-o", out.string()});
  INFO("stdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  return result.out;
}

void report_and_info_work(const fs::path& db) {
  const ProcessResult report = parity_cli({"report", db.string()});
  INFO("stdout: " << report.out << "\nstderr: " << report.err);
  CHECK(report.exit_code == 0);
  CHECK_THAT(report.out, Catch::Contains("Steps"));
  const ProcessResult info = parity_cli({"info", db.string()});
  CHECK(info.exit_code == 0);
}

std::vector<RangeRow> ranges(TraceReader& trace, Category category, const std::string& name = {}) {
  std::vector<RangeRow> found;
  for (const RangeRow& row : schema::read_all<schema::kTable<RangeRow>>(trace.db(), "ORDER BY id"))
    if (row.category == category && (name.empty() || trace.string(row.name) == name))
      found.push_back(row);
  return found;
}

std::int64_t total_ns(const std::vector<RangeRow>& rows) {
  std::int64_t total = 0;
  for (const RangeRow& row : rows) total += row.dur_ns;
  return total;
}

std::int64_t phase_ns(TraceReader& trace, const std::string& phase, std::size_t index) {
  const std::vector<RangeRow> rows = ranges(trace, Category::kPhase, phase);
  REQUIRE(rows.size() > index);
  return rows[index].dur_ns;
}

}  // namespace

TEST_CASE("real MindSpore 1.0 profiler folder: its step, phases, ops and data queue", "[e2e]") {
  TempDir dir;
  const fs::path profiler = unpack(dir, "mindinsight-run_2") / "profiler";
  const std::string summary = import_ok(profiler, dir / "run_2.db");
  // The step trace's second row is the all-zero row MindSpore 1.0 writes
  // for a one-step trace; the JSON gives tids as text ("519").
  CHECK_THAT(summary, Catch::Contains("1 step trace rows with no times"));
  CHECK_THAT(summary, Catch::Contains("15 files of the folder Parity does not read"));
  CHECK_THAT(summary, !Catch::Contains("GPU kernels"));
  TraceReader trace(dir / "run_2.db");

  const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "ORDER BY step");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].step == 1);
  CHECK(steps[0].end_ns - steps[0].start_ns == 23'709'050);  // (15490791977780-...606875)*10 ns
  CHECK(phase_ns(trace, "forward", 0) == 14'505'380);        // fp_point to the first Gradients/ op
  CHECK(phase_ns(trace, "backward", 0) == 9'162'700);
  CHECK(phase_ns(trace, "optimizer", 0) == 40'970);  // the tail, 4097 ticks

  const std::vector<RangeRow> ops = ranges(trace, Category::kOp);
  CHECK(ops.size() == 112);  // 107 AI Core ops and 5 AI CPU ops
  const std::vector<RangeRow> matmul = ranges(trace, Category::kOp, "MatMul");
  CHECK(matmul.size() == 9);
  CHECK(total_ns(matmul) == 20'657'740);
  // On one clock: the step starts 6043.01875 ms after the first op (AI CPU's
  // InitData), as output_timeline_data_1.txt and aicpu_intermediate_1.csv say.
  std::int64_t earliest = ops.front().start_ns;
  for (const RangeRow& op : ops) earliest = std::min(earliest, op.start_ns);
  CHECK(steps[0].start_ns - earliest == 6'043'018'750);

  const auto queue = schema::read_all<schema::kTable<QueueSampleRow>>(trace.db(), "ORDER BY id");
  REQUIRE(queue.size() == 1);  // device_queue_profiling_1.txt: one connector record, "1 64 1 0 10"
  CHECK(queue[0].depth == 0);
  CHECK(queue[0].capacity == 64);
  CHECK(trace.meta_value("rank") == "1");
  CHECK_FALSE(trace.meta_value("world_size"));  // a lone device 1 says nothing of the others
  report_and_info_work(dir / "run_2.db");
}

TEST_CASE("real MindSpore 0.5 profiler folder: 322 steps, the timeline's 15, reduces", "[e2e]") {
  TempDir dir;
  const fs::path profiler = unpack(dir, "mindinsight-run_1") / "profiler";
  const std::string summary = import_ok(profiler, dir / "run_1.db");
  CHECK_THAT(summary, Catch::Contains("307 of 322 steps have no op on the timeline"));
  CHECK_THAT(summary, Catch::Contains("3542 communication rows (pid 10000"));
  TraceReader trace(dir / "run_1.db");

  const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "ORDER BY step");
  REQUIRE(steps.size() == 322);  // the average row "-" left out
  CHECK(steps[1].end_ns - steps[1].start_ns == 205'683'580);
  // Step 2: data wait 21081 ticks; backward from its first Gradients/ op.
  CHECK(phase_ns(trace, "data_wait", 0) == 210'810);
  CHECK(phase_ns(trace, "forward", 1) == 3'287'260);
  CHECK(phase_ns(trace, "backward", 1) == 114'710'320);
  CHECK(ranges(trace, Category::kOp).size() == 2817);
  const std::vector<RangeRow> matmul = ranges(trace, Category::kOp, "MatMul");
  CHECK(matmul.size() == 210);
  CHECK(total_ns(matmul) == 27'113'540);
  // 11 stream_<s>_parallel_0 columns a step, read as AllReduce.
  const auto collectives =
      schema::read_all<schema::kTable<CollectiveRow>>(trace.db(), "ORDER BY id");
  CHECK(collectives.size() == 3542);
  report_and_info_work(dir / "run_1.db");
}

TEST_CASE("real MindSpore timeline JSONs alone: steps from the first op's runs", "[e2e]") {
  TempDir dir;
  const fs::path run_1 = unpack(dir, "mindinsight-run_1") / "profiler" / "timeline_display_1.json";
  const std::string summary = import_ok(run_1, dir / "run_1.db");
  CHECK_THAT(summary, Catch::Contains("14 steps (from one run of the first op, AssignAdd-op414"));
  {
    TraceReader trace(dir / "run_1.db");
    CHECK(ranges(trace, Category::kOp).size() == 2817);
    const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "ORDER BY step");
    REQUIRE(steps.size() == 14);
    CHECK(steps[0].end_ns - steps[0].start_ns == 284'483'360);  // AssignAdd-op414's runs 1 and 2
  }
  report_and_info_work(dir / "run_1.db");

  const fs::path run_2 =
      unpack(dir, "mindinsight-run_2") / "profiler" / "ascend_timeline_display_1.json";
  import_ok(run_2, dir / "run_2.db");
  {
    TraceReader trace(dir / "run_2.db");
    CHECK(ranges(trace, Category::kOp).size() == 112);
    CHECK(schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db()).empty());
  }
  report_and_info_work(dir / "run_2.db");
}

TEST_CASE("real ASCEND_PROFILER_OUTPUT (torch_npu): kernels, collectives, the step", "[e2e]") {
  TempDir dir;
  const fs::path parent = unpack(dir, "msinsight-level1");
  const fs::path rank_dir = parent / "rank0_ascend_pt";
  // The parent of rank folders, the rank folder and the output folder itself.
  for (const fs::path& in : {parent, rank_dir, rank_dir / "ASCEND_PROFILER_OUTPUT"}) {
    const fs::path db = dir / (in.filename().string() + ".db");
    const std::string summary = import_ok(in, db);
    CHECK_THAT(summary, Catch::Contains("written by PyTorch (torch_npu), as profiler_info_0.json"));
    CHECK_THAT(summary, Catch::Contains("187 NPU kernels (Ascend Hardware)"));
    CHECK_THAT(summary, !Catch::Contains("op_statistic counts differ"));
    CHECK_THAT(summary, !Catch::Contains("kernel_details.csv lists"));
  }
  TraceReader trace(dir / "rank0_ascend_pt.db");
  std::int64_t kernels = 0, copies = 0, syncs = 0, kernel_ns = 0;
  for (const StoredGpuActivityRow& row :
       schema::read_all<schema::kTable<StoredGpuActivityRow>>(trace.db())) {
    if (row.kind == GpuActivityKind::kKernel) {
      ++kernels;
      kernel_ns += row.dur_ns;
    }
    copies += row.kind == GpuActivityKind::kMemcpy;
    syncs += row.kind == GpuActivityKind::kSync;
  }
  CHECK(kernels == 187);  // AI_CORE 172, MIX_AIV 13, DSA_SQE 2: kernel_details' non-HCCL rows
  CHECK(copies == 96);    // SDMA 72, PCIE_DMA_SQE 14, SDMA_SQE 10
  CHECK(syncs == 248);    // Notify Wait 112, Write Value 112, EVENT_RECORD 14, EVENT_WAIT 10
  CHECK(kernel_ns == 8'873'740);  // step_trace_time.csv: Computing 8873.756 us

  const auto steps = schema::read_all<schema::kTable<StepRow>>(trace.db(), "ORDER BY step");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].step == 50);                                 // ProfilerStep#50
  CHECK(steps[0].end_ns - steps[0].start_ns == 155'985'800);  // its dur, 155985.8 us

  const auto collectives =
      schema::read_all<schema::kTable<CollectiveRow>>(trace.db(), "ORDER BY id");
  REQUIRE(collectives.size() == 4);  // hcom_allReduce__586_{0..3}_1
  std::int64_t bytes = 0;
  for (const CollectiveRow& row : collectives) {
    CHECK(row.op == CollectiveOp::kAllReduce);
    CHECK(row.dtype == "FP32");
    bytes += row.bytes;
  }
  CHECK(bytes == 244'403'360);                         // the counts times 4 bytes
  CHECK(ranges(trace, Category::kApi).size() == 707);  // the CANN lane's AscendCL calls
  CHECK(trace.meta_value("import.framework") == "PyTorch (torch_npu)");
  CHECK_THAT(trace.meta_value("import.step_trace_time").value_or(""),
             Catch::Contains("step 50: Computing=8873.756"));
  report_and_info_work(dir / "rank0_ascend_pt.db");
}

TEST_CASE("an ASCEND_PROFILER_OUTPUT without trace_view.json, or of a missing rank, is refused",
          "[e2e]") {
  TempDir dir;
  const fs::path rank_dir = unpack(dir, "msinsight-level1") / "rank0_ascend_pt";
  check_refused(
      parity_cli({"import", rank_dir.string(), "--rank", "3", "-o", (dir / "r3.db").string()}),
      "no ASCEND_PROFILER_OUTPUT of rank 3");
  fs::remove(rank_dir / "ASCEND_PROFILER_OUTPUT" / "trace_view.json");
  check_refused(parity_cli({"import", rank_dir.string(), "-o", (dir / "x.db").string()}),
                "no trace_view.json");
}

TEST_CASE("a cut kernel_details.csv is refused naming its line", "[e2e]") {
  TempDir dir;
  const fs::path output =
      unpack(dir, "msinsight-level1") / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
  std::ifstream in(output / "kernel_details.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  in.close();
  std::ofstream(output / "kernel_details.csv", std::ios::trunc)
      << header << "\n"
      << first.substr(0, first.size() / 2) << "\n";
  check_refused(parity_cli({"import", output.string(), "-o", (dir / "x.db").string()}),
                "kernel_details.csv, line 2");
}
