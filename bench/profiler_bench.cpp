// Profiler benchmark (issue targets: range begin+end median <= 50 ns; writer
// >= 2 million rows/s sustained; <= 40 bytes per range or kernel row on disk).
// Prints one table; scripts/bench/profiler.sh adds PyTorch's profiler as the peer.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parity/profiler/recorder.hpp"
#include "parity/profiler/sqlite.hpp"

namespace fs = std::filesystem;
using namespace parity::profiler;

namespace {

fs::path fresh_path(const fs::path& dir, const std::string& name) {
  fs::path path = dir / name;
  fs::remove(path);
  return path;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Median cost of one Scope (begin + end), timed over batches of 100.
double median_scope_ns(Recorder& recorder, NameId name) {
  constexpr int kBatches = 20000, kPerBatch = 100;
  std::vector<double> per_scope;
  per_scope.reserve(kBatches);
  for (int batch = 0; batch < kBatches; ++batch) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kPerBatch; ++i) {
      Scope scope(recorder, name, Category::kLayer);
    }
    per_scope.push_back(std::chrono::duration<double, std::nano>(
                            std::chrono::steady_clock::now() - start).count() / kPerBatch);
  }
  return median(std::move(per_scope));
}

// The hot path with the writer draining on the other core. The ring holds the
// whole run, so nothing drops; then the same loop with capture off.
void bench_hot_path(const fs::path& dir) {
  RecorderOptions options;
  options.path = fresh_path(dir, "hot_path.db");
  options.slots_per_thread = 1u << 23;
  Recorder recorder(options);
  const NameId name = intern("layer1.0.conv1");
  const double capturing = median_scope_ns(recorder, name);
  recorder.stop();
  const double idle = median_scope_ns(recorder, name);
  std::printf("| range begin+end, median          | %10.1f ns |    <= 50 ns  |\n", capturing);
  std::printf("| range begin+end, capture off     | %10.1f ns |              |\n", idle);
  std::printf("| dropped records                  | %10llu    |            0 |\n",
              static_cast<unsigned long long>(recorder.stats().dropped));
}

// Rows per second from the first record to the moment all are committed.
// Returns the start time so that the caller can include the final checkpoint.
std::chrono::steady_clock::time_point bench_writer(const fs::path& dir, std::uint64_t& rows) {
  constexpr int kSteps = 1000, kLayers = 160, kOpsPerLayer = 10;  // 1.6M ranges + steps
  RecorderOptions options;
  options.path = fresh_path(dir, "writer.db");
  options.slots_per_thread = 1u << 23;
  Recorder recorder(options);
  std::vector<NameId> layers, ops;
  for (int i = 0; i < kLayers; ++i) layers.push_back(intern("layer." + std::to_string(i)));
  for (int i = 0; i < kOpsPerLayer; ++i) ops.push_back(intern("op." + std::to_string(i)));
  const NameId step_name = intern("step");
  recorder.thread_buffer();  // registers the thread (a one-time ring set-up) before timing
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < kSteps; ++step) {
    Scope step_scope(recorder, step_name, Category::kStep, step);
    for (const NameId layer : layers) {
      Scope layer_scope(recorder, layer, Category::kLayer);
      for (const NameId op : ops) Scope op_scope(recorder, op, Category::kOp);
    }
  }
  const double produced = seconds_since(start);
  recorder.flush();
  const double total = seconds_since(start);
  const auto stats = recorder.stats();
  rows = stats.rows_written;
  std::printf("| writer, rows/s committed         | %9.2f M  |     >= 2.0 M |\n",
              static_cast<double>(stats.rows_written) / total / 1e6);
  std::printf("| writer, rows in the run          | %10llu    |              |\n",
              static_cast<unsigned long long>(stats.rows_written));
  std::printf("| producer time for those rows     | %10.2f s  |              |\n", produced);
  return start;
  std::printf("| dropped records                  | %10llu    |            0 |\n",
              static_cast<unsigned long long>(stats.dropped));
}

std::uintmax_t trace_bytes(const fs::path& path) {
  std::uintmax_t bytes = fs::file_size(path);
  for (const char* suffix : {"-wal", "-shm"}) {
    fs::path extra = path;
    extra += suffix;
    if (fs::exists(extra)) bytes += fs::file_size(extra);
  }
  return bytes;
}

// Bytes on disk per row of a finished trace of nested ranges and of kernels.
void bench_size(const fs::path& dir) {
  const fs::path ranges_path = fresh_path(dir, "size_ranges.db");
  constexpr int kRanges = 500000;
  {
    RecorderOptions options;
    options.path = ranges_path;
    options.slots_per_thread = 1u << 21;
    Recorder recorder(options);
    std::vector<NameId> names;
    for (int i = 0; i < 300; ++i) names.push_back(intern("module." + std::to_string(i)));
    std::mt19937 random(7);
    for (int i = 0; i < kRanges / 4; ++i) {
      Scope outer(recorder, names[random() % names.size()], Category::kLayer);
      for (int j = 0; j < 3; ++j) Scope inner(recorder, names[random() % names.size()], Category::kOp);
    }
  }
  const fs::path kernels_path = fresh_path(dir, "size_kernels.db");
  constexpr int kKernels = 500000;
  {
    RecorderOptions options;
    options.path = kernels_path;
    Recorder recorder(options);
    const TrackId stream = recorder.gpu_stream_track(0, 7);
    std::vector<NameId> names;
    for (int i = 0; i < 200; ++i)
      names.push_back(intern("sm90_xmma_fprop_implicit_gemm_bf16_kernel_" + std::to_string(i)));
    std::mt19937 random(11);
    std::vector<GpuActivityRow> rows;
    std::int64_t time = 1'000'000'000;
    for (int i = 0; i < kKernels; ++i) {
      GpuActivityRow row;
      row.track = stream;
      row.id = i + 1;
      row.start_ns = time;
      row.dur_ns = 2000 + static_cast<std::int64_t>(random() % 400000);
      time += row.dur_ns + 500 + static_cast<std::int64_t>(random() % 3000);
      row.name = names[random() % names.size()];
      row.correlation_id = 1000 + i;
      LaunchConfig launch;
      launch.grid = {static_cast<std::uint32_t>(1 + random() % 512), 1 + static_cast<std::uint32_t>(random() % 4), 1};
      launch.block = {128u << (random() % 2), 1, 1};
      launch.shared_bytes = 49152;
      launch.registers = 128;
      row.launch = launch;
      rows.push_back(row);
      if (rows.size() == 10000) recorder.add_gpu_activities(std::exchange(rows, {}));
    }
  }
  std::printf("| bytes per range row on disk      | %10.1f B  |      <= 40 B |\n",
              static_cast<double>(trace_bytes(ranges_path)) / kRanges);
  std::printf("| bytes per kernel row on disk     | %10.1f B  |      <= 40 B |\n",
              static_cast<double>(trace_bytes(kernels_path)) / kKernels);
}

}  // namespace

int main(int argc, char** argv) {
  // Usage: profiler_bench [DIR] [hot|writer|size]... (default: all sections)
  const fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / "parity_bench";
  fs::create_directories(dir);
  const auto wanted = [&](std::string_view section) {
    if (argc <= 2) return true;
    for (int i = 2; i < argc; ++i)
      if (section == argv[i]) return true;
    return false;
  };
  std::printf("| measure                          | value         | target       |\n");
  std::printf("|----------------------------------|---------------|--------------|\n");
  if (wanted("hot")) bench_hot_path(dir);
  if (wanted("writer")) {
    std::uint64_t rows = 0;
    const auto start = bench_writer(dir, rows);  // the recorder's destructor checkpoints and closes
    std::printf("| rows/s incl. final checkpoint    | %9.2f M  |              |\n",
                static_cast<double>(rows) / seconds_since(start) / 1e6);
  }
  if (wanted("size")) bench_size(dir);
  return 0;
}
