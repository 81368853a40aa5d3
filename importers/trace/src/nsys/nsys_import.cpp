#include "nsys/nsys_import.hpp"

#include "nsys/nsys_gpu_activity.hpp"
#include "nsys/nsys_host_calls.hpp"
#include "nsys/nsys_meta.hpp"
#include "nsys/nsys_nvtx.hpp"
#include "nsys/nsys_processes.hpp"
#include "nsys/nsys_source.hpp"
#include "parity/core/error.hpp"
#include "parity/profiler/sql_queries.hpp"

namespace parity::importers::trace {
namespace {

using profiler::sql::Database;

std::vector<std::string> table_names(Database& db) {
  return profiler::sql::query_texts(
      db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
}

// Tables no reader opened are counted by their rows: nothing unread goes
// unmentioned. The ENUM_* tables are the codes' names, not events.
void count_unread_tables(NsysSource& source) {
  for (const std::string& name : table_names(source.db())) {
    if (source.tables_read().count(name) || name.starts_with("ENUM_") ||
        name.starts_with("sqlite_"))
      continue;
    if (auto table = NsysTable::open(source.db(), name))
      if (const std::int64_t rows = table->row_count(); rows > 0)
        source.skip("rows of table " + name + " (not read by Parity)",
                    static_cast<std::uint64_t>(rows));
  }
}

void add_notes(NsysSource& source, const NsysProcesses& processes) {
  source.note(
      "no CPU operator ranges, layers, phases (forward, backward, optimizer) or gradient-ready "
      "times: Nsight Systems records CUDA calls and NVTX ranges, which are imported as user "
      "ranges (PyTorch's emit_nvtx() ranges included)");
  if (!source.imported("steps (NVTX ranges named like steps)"))
    source.note(
        "no NVTX ranges named like steps (ProfilerStep#N, step N, iteration N), so no steps: "
        "wrap each iteration in an NVTX range such as nvtx.range(f\"step {n}\")");
  if (!source.imported("kernels"))
    source.note("no kernels: was the run profiled with --trace=cuda?");
  if (source.imported("collectives (NCCL kernels)"))
    source.note(
        "collectives without their sizes (bytes, bandwidth): NCCL kernels carry none, and "
        "NCCL's NVTX payloads are not read");
  if (processes.rank_count() > 1)
    source.note(
        "several processes with GPU activity, read as the ranks of one run in the "
        "order of their PIDs (" +
        processes.rank_list() + "); every analysis sees them as one trace");
}

// A capture that traced none of CUDA, NVTX and OS runtime calls, or whose
// program never ran, leaves an export of metadata only: nsys writes no table
// it has no rows for, so there are no CUPTI_ACTIVITY_KIND_* tables at all.
void refuse_if_empty(NsysSource& source, const std::filesystem::path& path) {
  if (!source.assembly().empty()) return;
  throw Error(
      "an Nsight Systems export with no events Parity reads: no CUDA kernels, copies or API "
      "calls (CUPTI_ACTIVITY_KIND_* tables), NVTX ranges (NVTX_EVENTS) or OS runtime calls "
      "(OSRT_API)",
      path.string(),
      "was the program traced, and did it run? profile it with nsys profile "
      "--trace=cuda,nvtx,osrt; nsys leaves out the tables of what it did not record");
}

}  // namespace

bool is_nsys_export(const std::filesystem::path& path) {
  try {
    Database db(path, Database::Mode::kReadOnly);
    return profiler::sql::table_exists(db, "StringIds") && !profiler::sql::table_exists(db, "meta");
  } catch (const Error&) {
    return false;  // unreadable: the trace reader says why
  }
}

void refuse_sqlite_import(const std::filesystem::path& path) {
  Database db(path, Database::Mode::kReadOnly);
  table_names(db);  // throws, naming the file, for one that SQLite cannot read
  if (profiler::sql::table_exists(db, "meta"))
    throw Error("the file is already a Parity trace", path.string(), "read it as it is");
  throw Error(
      "an SQLite database that is neither a Parity trace nor an Nsight Systems export "
      "(it has no StringIds table)",
      path.string(), "Parity reads its own trace databases and nsys export --type sqlite output");
}

void read_nsys_sqlite(const std::filesystem::path& in, const ImportOptions& options,
                      TraceAssembly& assembly, ImportSummary& summary) {
  const std::uint64_t total = std::filesystem::file_size(in);
  NsysSource source(in, assembly, summary);
  NsysProcesses processes(source);
  const auto progress = [&](int part) {
    if (options.progress) options.progress(total * static_cast<std::uint64_t>(part) / 5, total);
  };
  const auto session_start = read_nsys_meta(source);
  progress(1);
  read_nsys_gpu_activity(source, processes);
  progress(2);
  read_nsys_cuda_api(source, processes);
  progress(3);
  read_nsys_nvtx(source, processes);
  read_nsys_os_runtime(source, processes);
  refuse_if_empty(source, in);
  progress(4);
  count_unread_tables(source);
  add_notes(source, processes);
  summary.source = "Nsight Systems export";
  // Rows read; an NCCL kernel is also counted as a collective, but is one row.
  for (const auto& [what, n] : summary.imported)
    if (what != "collectives (NCCL kernels)") summary.events += n;
  for (const auto& [what, n] : summary.not_imported) summary.events += n;
  assembly.set_meta("rank", "0");  // the first of the export's processes, where it holds several
  if (processes.rank_count() > 1) {
    assembly.set_meta("world_size", std::to_string(processes.rank_count()));
    assembly.set_meta("import.nsys.ranks", processes.rank_list());
  }
  std::int64_t origin = 0;  // the UTC time of the trace's time 0, the earliest event
  if (session_start && assembly.earliest_ns() &&
      !__builtin_add_overflow(*session_start, *assembly.earliest_ns(), &origin))
    assembly.set_meta("clock_origin_unix_ns", std::to_string(origin));
  progress(5);
}

}  // namespace parity::importers::trace
