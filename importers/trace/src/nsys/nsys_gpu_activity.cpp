#include "nsys/nsys_gpu_activity.hpp"

#include <algorithm>

#include "chrome/chrome_collectives.hpp"

namespace parity::importers::trace {
namespace {

using profiler::GpuActivityKind;
using profiler::GpuActivityRow;

// The columns every GPU activity table has.
struct CommonColumns {
  int start, end, device, stream, correlation, process;
  explicit CommonColumns(NsysTable& table)
      : start(table.required({"start"})),
        end(table.required({"end"})),
        device(table.required({"deviceId"})),
        stream(table.column({"streamId"})),
        correlation(table.column({"correlationId"})),
        process(table.column({"globalPid"})) {}
};

// A row's times, track and correlation id; nullopt (counted) where it ends before it starts.
std::optional<GpuActivityRow> common_row(NsysSource& source, NsysProcesses& processes,
                                         const CommonColumns& columns, const NsysRow& row,
                                         const std::string& table) {
  const std::int64_t start = row.integer_or(columns.start, 0);
  const auto duration = nsys_duration(start, row.integer(columns.end));
  if (!duration) {
    source.skip("rows of " + table + " without an end, or ending before they start");
    return std::nullopt;
  }
  const std::int64_t process = row.integer_or(columns.process, 0);
  const std::int64_t device = row.integer_or(columns.device, 0);
  const auto stream = row.integer(columns.stream);
  // CUPTI writes 0xFFFFFFFF for "no stream" (an event's or a context's
  // synchronisation): such rows go on the GPU's own lane.
  constexpr std::int64_t kNoStream = 0xFFFFFFFF;
  const bool on_stream = stream && *stream >= 0 && *stream != kNoStream;
  GpuActivityRow out;
  out.track = on_stream ? processes.stream(process, device, *stream)
                        : processes.lane(process, "GPU " + std::to_string(device),
                                         profiler::TrackKind::kGpuDevice);
  out.start_ns = start;
  out.dur_ns = *duration;
  out.correlation_id = processes.correlation(row.integer(columns.correlation), process);
  return out;
}

// A launch's grid or block extent, registers or bytes, held to what a GPU can
// have (2^30), so that sums of them stay in 32 bits.
std::uint32_t launch_value(const NsysRow& row, int column, std::int64_t fallback) {
  return static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(row.integer_or(column, fallback), 0, std::int64_t(1) << 30));
}

struct KernelColumns : CommonColumns {
  int full_name, short_name, grid[3], block[3], static_shared, dynamic_shared, registers;
  explicit KernelColumns(NsysTable& table)
      : CommonColumns(table),
        full_name(table.required({"demangledName", "shortName", "name"})),
        short_name(table.column({"shortName"})),
        grid{table.column({"gridX"}), table.column({"gridY"}), table.column({"gridZ"})},
        block{table.column({"blockX"}), table.column({"blockY"}), table.column({"blockZ"})},
        static_shared(table.column({"staticSharedMemory"})),
        dynamic_shared(table.column({"dynamicSharedMemory"})),
        registers(table.column({"registersPerThread"})) {}
};

std::optional<profiler::LaunchConfig> launch_of(const KernelColumns& columns, const NsysRow& row) {
  if (columns.grid[0] < 0 || columns.block[0] < 0) return std::nullopt;
  profiler::LaunchConfig launch;
  for (int axis = 0; axis < 3; ++axis) {
    launch.grid[axis] = launch_value(row, columns.grid[axis], 1);
    launch.block[axis] = launch_value(row, columns.block[axis], 1);
  }
  launch.shared_bytes =
      launch_value(row, columns.static_shared, 0) + launch_value(row, columns.dynamic_shared, 0);
  launch.registers = launch_value(row, columns.registers, 0);
  return launch;
}

// An NCCL kernel is also a collective of its process's rank, on a lane per GPU.
void add_if_collective(NsysSource& source, NsysProcesses& processes, const KernelColumns& columns,
                       const NsysRow& row, const GpuActivityRow& kernel) {
  const int name = columns.short_name >= 0 ? columns.short_name : columns.full_name;
  const auto op = nccl_kernel_op(source.text(row.integer(name)));
  if (!op) return;
  const std::int64_t process = row.integer_or(columns.process, 0);
  const std::string gpu = std::to_string(row.integer_or(columns.device, 0));
  profiler::CollectiveRow collective;
  collective.track = processes.lane(process, "collectives NCCL (GPU " + gpu + ")",
                                    profiler::TrackKind::kCollective);
  collective.start_ns = kernel.start_ns;
  collective.dur_ns = kernel.dur_ns;
  collective.op = *op;
  collective.rank = processes.rank(process).value_or(0);
  source.assembly().add_collective(collective);
  source.count("collectives (NCCL kernels)");
}

void read_kernels(NsysSource& source, NsysProcesses& processes) {
  const std::string name = "CUPTI_ACTIVITY_KIND_KERNEL";
  auto table = source.table(name);
  if (!table) return;
  const KernelColumns columns(*table);
  table->for_each("start", [&](const NsysRow& row) {
    auto kernel = common_row(source, processes, columns, row, name);
    if (!kernel) return;
    kernel->kind = GpuActivityKind::kKernel;
    kernel->name = source.name(row.integer(columns.full_name));
    kernel->launch = launch_of(columns, row);
    source.assembly().add_gpu_activity(*kernel);
    source.count("kernels");
    add_if_collective(source, processes, columns, row, *kernel);
  });
}

// CUPTI's memcpy kinds (Parity's copy_kind) from nsys's ENUM_CUDA_MEMCPY_OPER:
// 0-10 are the same; 11-13, unified-memory migrations, are HtoD, DtoH, DtoD.
std::int64_t copy_kind(std::int64_t nsys_kind) {
  if (nsys_kind == 11) return 1;
  if (nsys_kind == 12) return 2;
  if (nsys_kind == 13) return 8;
  return nsys_kind;
}

std::string memcpy_name(std::int64_t kind) {
  static const char* names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  const std::int64_t cupti = copy_kind(kind);
  const std::string direction = cupti >= 0 && cupti <= 10 ? names[cupti] : "Unknown";
  return "Memcpy " + direction + (kind >= 11 && kind <= 13 ? " (unified memory)" : "");
}

void read_copies(NsysSource& source, NsysProcesses& processes, GpuActivityKind kind) {
  const bool memcpy = kind == GpuActivityKind::kMemcpy;
  const std::string name = memcpy ? "CUPTI_ACTIVITY_KIND_MEMCPY" : "CUPTI_ACTIVITY_KIND_MEMSET";
  auto table = source.table(name);
  if (!table) return;
  const CommonColumns columns(*table);
  const int bytes = table->required({"bytes"});
  const int copy = memcpy ? table->column({"copyKind"}) : -1;
  table->for_each("start", [&](const NsysRow& row) {
    auto out = common_row(source, processes, columns, row, name);
    if (!out) return;
    out->kind = kind;
    out->bytes = row.integer(bytes);
    if (memcpy) {
      const std::int64_t nsys_kind = row.integer_or(copy, 0);
      out->copy_kind = copy_kind(nsys_kind);
      out->name = source.assembly().name(memcpy_name(nsys_kind));
    } else {
      out->name = source.assembly().name("Memset");
    }
    source.assembly().add_gpu_activity(*out);
    source.count(memcpy ? "memcpy" : "memset");
  });
}

// CUPTI's synchronisation types, where the export has no ENUM_CUPTI_SYNC_TYPE.
std::string sync_name(const std::map<std::int64_t, std::string>& labels, std::int64_t type) {
  if (const auto it = labels.find(type); it != labels.end() && !it->second.empty())
    return it->second;
  static const char* names[] = {"Synchronize", "Event synchronize", "Stream wait event",
                                "Stream synchronize", "Context synchronize"};
  return type >= 0 && type <= 4 ? names[type] : "Synchronize (type " + std::to_string(type) + ")";
}

void read_synchronizations(NsysSource& source, NsysProcesses& processes) {
  const std::string name = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  auto table = source.table(name);
  if (!table) return;
  const auto labels = source.enum_labels("ENUM_CUPTI_SYNC_TYPE");
  const CommonColumns columns(*table);
  const int type = table->column({"syncType"});
  table->for_each("start", [&](const NsysRow& row) {
    auto out = common_row(source, processes, columns, row, name);
    if (!out) return;
    out->kind = GpuActivityKind::kSync;
    out->name = source.assembly().name(sync_name(labels, row.integer_or(type, 0)));
    source.assembly().add_gpu_activity(*out);
    source.count("GPU synchronisations");
  });
}

}  // namespace

void read_nsys_gpu_activity(NsysSource& source, NsysProcesses& processes) {
  read_kernels(source, processes);
  read_copies(source, processes, GpuActivityKind::kMemcpy);
  read_copies(source, processes, GpuActivityKind::kMemset);
  read_synchronizations(source, processes);
}

}  // namespace parity::importers::trace
