#include "parity/profiler/chrome_trace_export.hpp"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/error.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"

namespace parity::profiler {
namespace {

// GPU devices appear as their own processes, after the host process.
constexpr std::int64_t kGpuPidBase = 1'000'000;

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Chrome traces count in microseconds; three decimals keep every nanosecond.
std::string micros(std::int64_t ns) {
  char text[32];
  const char* sign = ns < 0 ? "-" : "";
  const std::uint64_t magnitude =
      ns < 0 ? static_cast<std::uint64_t>(-ns) : static_cast<std::uint64_t>(ns);
  std::snprintf(text, sizeof text, "%s%" PRIu64 ".%03" PRIu64, sign, magnitude / 1000,
                magnitude % 1000);
  return text;
}

// Counters and queue samples are named by their track.
struct NamedCounter : CounterRow {
  NameId track_name = 0;
};
constexpr auto kNamedCounters = schema::projection<NamedCounter>(
    "counter", "counter c JOIN track t ON t.id = c.track_id",
    schema::column<NamedCounter>("c.ts_ns", &NamedCounter::ts_ns),
    schema::column<NamedCounter>("c.value", &NamedCounter::value),
    schema::column<NamedCounter>("t.name_id", &NamedCounter::track_name));

struct NamedQueueSample : QueueSampleRow {
  NameId track_name = 0;
};
constexpr auto kNamedQueueSamples = schema::projection<NamedQueueSample>(
    "queue_sample", "queue_sample q JOIN track t ON t.id = q.track_id",
    schema::column<NamedQueueSample>("q.ts_ns", &NamedQueueSample::ts_ns),
    schema::column<NamedQueueSample>("q.depth", &NamedQueueSample::depth),
    schema::column<NamedQueueSample>("q.capacity", &NamedQueueSample::capacity),
    schema::column<NamedQueueSample>("t.name_id", &NamedQueueSample::track_name));

struct NamedGradReady : GradReadyRow {
  std::optional<std::string> param_name;  // none when parameter holds no such index
};
constexpr auto kNamedGradients = schema::projection<NamedGradReady>(
    "grad_ready", "grad_ready g LEFT JOIN parameter p ON p.idx = g.param_idx",
    schema::column<NamedGradReady>("g.track_id", &NamedGradReady::track),
    schema::column<NamedGradReady>("g.ts_ns", &NamedGradReady::ts_ns),
    schema::column<NamedGradReady>("g.param_idx", &NamedGradReady::param_index),
    schema::column<NamedGradReady>("g.bytes", &NamedGradReady::bytes),
    schema::column<NamedGradReady>("g.step", &NamedGradReady::step),
    schema::column<NamedGradReady>("p.name", &NamedGradReady::param_name));

// A flow arrow needs both ends: a call that queued work, work whose launch is in the trace.
struct LaunchingCall : ApiCallRow {
  bool has_work = false;
};
constexpr auto kLaunchingCalls = schema::projection<LaunchingCall>(
    "api_call", "api_call a", schema::column<LaunchingCall>("track_id", &LaunchingCall::track),
    schema::column<LaunchingCall>("start_ns", &LaunchingCall::start_ns),
    schema::column<LaunchingCall>("dur_ns", &LaunchingCall::dur_ns),
    schema::column<LaunchingCall>("kind", &LaunchingCall::kind),
    schema::column<LaunchingCall>("name_id", &LaunchingCall::name),
    schema::column<LaunchingCall>("correlation_id", &LaunchingCall::correlation_id),
    schema::column<LaunchingCall>(
        "EXISTS(SELECT 1 FROM gpu_activity g WHERE g.correlation_id = a.correlation_id)",
        &LaunchingCall::has_work));

struct LaunchedWork : StoredGpuActivityRow {
  bool has_launch = false;
};
constexpr auto kLaunchedWork = schema::projection<LaunchedWork>(
    "gpu_activity", "gpu_activity g",
    schema::column<LaunchedWork>("g.track_id", &LaunchedWork::track),
    schema::column<LaunchedWork>("g.start_ns", &LaunchedWork::start_ns),
    schema::column<LaunchedWork>("g.dur_ns", &LaunchedWork::dur_ns),
    schema::column<LaunchedWork>("g.kind", &LaunchedWork::kind),
    schema::column<LaunchedWork>("g.name_id", &LaunchedWork::name),
    schema::column<LaunchedWork>("g.correlation_id", &LaunchedWork::correlation_id),
    schema::column<LaunchedWork>("g.bytes", &LaunchedWork::bytes),
    schema::column<LaunchedWork>("g.launch_id", &LaunchedWork::launch_id),
    schema::column<LaunchedWork>(
        "EXISTS(SELECT 1 FROM api_call a WHERE a.correlation_id = g.correlation_id)",
        &LaunchedWork::has_launch));

class EventStream {
 public:
  EventStream(std::ostream& out, std::uint64_t total_rows,
              const std::function<void(double)>& progress)
      : out_(out), total_rows_(total_rows), progress_(progress) {}

  void event(const std::string& body) {
    out_ << (count_ == 0 ? "\n" : ",\n") << '{' << body << '}';
    ++count_;
  }
  void row_done() {
    if (progress_ && total_rows_ > 0 && ++rows_ % 65536 == 0)
      progress_(static_cast<double>(rows_) / static_cast<double>(total_rows_));
  }
  std::uint64_t count() const { return count_; }

 private:
  std::ostream& out_;
  std::uint64_t total_rows_;
  const std::function<void(double)>& progress_;
  std::uint64_t count_ = 0;
  std::uint64_t rows_ = 0;
};

struct Exporter {
  TraceReader& trace;
  EventStream& stream;
  std::vector<std::string> names;  // JSON-escaped string table
  std::int64_t host_pid;

  const std::string& name(std::int64_t id) const {
    static const std::string unknown = "\"?\"";
    return id >= 0 && static_cast<std::size_t>(id) < names.size()
               ? names[static_cast<std::size_t>(id)]
               : unknown;
  }
  std::int64_t pid_of(TrackId track) const {
    const TrackRow* row = trace.track(track);
    if (row && row->kind == TrackKind::kGpuStream) return kGpuPidBase + row->device.value_or(0);
    return host_pid;
  }
  std::string where(std::int64_t pid, std::int64_t tid) const {
    return "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  }

  void metadata() {
    stream.event("\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(host_pid) +
                 ",\"args\":{\"name\":" +
                 json_string("rank " + trace.meta_value("rank").value_or("0") + " host") + "}");
    std::vector<std::int64_t> devices;
    for (const auto& track : trace.tracks()) {
      const std::int64_t pid = pid_of(track.id);
      if (track.kind == TrackKind::kGpuStream &&
          std::find(devices.begin(), devices.end(), pid) == devices.end()) {
        devices.push_back(pid);
        stream.event(
            "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
            ",\"args\":{\"name\":" + json_string("GPU " + std::to_string(pid - kGpuPidBase)) + "}");
      }
      stream.event("\"ph\":\"M\",\"name\":\"thread_name\"," + where(pid, track.id) +
                   ",\"args\":{\"name\":" + name(track.name) + "}");
    }
  }

  void ranges() {
    schema::for_each<schema::kTable<RangeRow>, &RangeRow::track, &RangeRow::start_ns,
                     &RangeRow::dur_ns, &RangeRow::name, &RangeRow::category, &RangeRow::depth,
                     &RangeRow::arg>(
        trace.db(), "ORDER BY track_id, start_ns, id", [&](const RangeRow& row) {
          std::string body = "\"ph\":\"X\",\"name\":" + name(row.name) + ",\"cat\":\"" +
                             std::string(category_name(row.category)) + "\"," +
                             where(pid_of(row.track), row.track) +
                             ",\"ts\":" + micros(row.start_ns) + ",\"dur\":" + micros(row.dur_ns) +
                             ",\"args\":{\"depth\":" + std::to_string(row.depth);
          if (row.arg) body += ",\"arg\":" + std::to_string(*row.arg);
          stream.event(body + "}");
          stream.row_done();
        });
  }

  void instants() {
    schema::for_each<schema::kTable<InstantRow>, &InstantRow::track, &InstantRow::ts_ns,
                     &InstantRow::name, &InstantRow::category>(
        trace.db(), "ORDER BY track_id, ts_ns", [&](const InstantRow& row) {
          stream.event("\"ph\":\"i\",\"s\":\"t\",\"name\":" + name(row.name) + ",\"cat\":\"" +
                       std::string(category_name(row.category)) + "\"," +
                       where(pid_of(row.track), row.track) + ",\"ts\":" + micros(row.ts_ns));
          stream.row_done();
        });
  }

  void counters() {
    schema::for_each<kNamedCounters>(
        trace.db(), "ORDER BY c.track_id, c.ts_ns", [&](const NamedCounter& row) {
          char value[40];
          std::snprintf(value, sizeof value, "%.17g", row.value);
          stream.event("\"ph\":\"C\",\"name\":" + name(row.track_name) +
                       ",\"pid\":" + std::to_string(host_pid) + ",\"ts\":" + micros(row.ts_ns) +
                       ",\"args\":{\"value\":" + value + "}");
          stream.row_done();
        });
    schema::for_each<kNamedQueueSamples>(
        trace.db(), "ORDER BY q.track_id, q.ts_ns", [&](const NamedQueueSample& row) {
          stream.event("\"ph\":\"C\",\"name\":" + name(row.track_name) +
                       ",\"pid\":" + std::to_string(host_pid) + ",\"ts\":" + micros(row.ts_ns) +
                       ",\"args\":{\"depth\":" + std::to_string(row.depth) +
                       ",\"capacity\":" + std::to_string(row.capacity) + "}");
          stream.row_done();
        });
  }

  void gradients_and_collectives() {
    schema::for_each<kNamedGradients>(
        trace.db(), "ORDER BY g.track_id, g.ts_ns", [&](const NamedGradReady& row) {
          const std::string param = row.param_name.value_or("#" + std::to_string(row.param_index));
          stream.event("\"ph\":\"i\",\"s\":\"t\",\"name\":" + json_string("grad ready " + param) +
                       ",\"cat\":\"grad_ready\"," + where(pid_of(row.track), row.track) +
                       ",\"ts\":" + micros(row.ts_ns) + ",\"args\":{\"param\":" +
                       std::to_string(row.param_index) + ",\"bytes\":" + std::to_string(row.bytes) +
                       ",\"step\":" + std::to_string(row.step) + "}");
          stream.row_done();
        });
    schema::for_each<schema::kTable<CollectiveRow>>(
        trace.db(), "ORDER BY track_id, start_ns", [&](const CollectiveRow& row) {
          stream.event("\"ph\":\"X\",\"name\":" +
                       json_string(std::string(collective_op_name(row.op)) + " bucket " +
                                   std::to_string(row.bucket)) +
                       ",\"cat\":\"collective\"," + where(pid_of(row.track), row.track) +
                       ",\"ts\":" + micros(row.start_ns) + ",\"dur\":" + micros(row.dur_ns) +
                       ",\"args\":{\"bytes\":" + std::to_string(row.bytes) +
                       ",\"dtype\":" + json_string(row.dtype) +
                       ",\"first_param\":" + std::to_string(row.first_param) + ",\"last_param\":" +
                       std::to_string(row.last_param) + ",\"rank\":" + std::to_string(row.rank) +
                       ",\"step\":" + std::to_string(row.step) + "}");
          stream.row_done();
        });
  }

  // API calls and GPU work; a flow arrow joins a launch to the work it queued.
  std::uint64_t device_work() {
    std::uint64_t flows = 0;
    schema::for_each<kLaunchingCalls>(
        trace.db(), "ORDER BY track_id, start_ns, id", [&](const LaunchingCall& row) {
          const std::string place = where(pid_of(row.track), row.track);
          std::string body = "\"ph\":\"X\",\"name\":" + name(row.name) + ",\"cat\":\"" +
                             std::string(api_kind_name(row.kind)) + "\"," + place +
                             ",\"ts\":" + micros(row.start_ns) + ",\"dur\":" + micros(row.dur_ns);
          if (row.correlation_id)
            body += ",\"args\":{\"correlation\":" + std::to_string(*row.correlation_id) + "}";
          stream.event(body);
          if (row.correlation_id && row.has_work) {
            stream.event("\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":" +
                         std::to_string(*row.correlation_id) + "," + place +
                         ",\"ts\":" + micros(row.start_ns));
            ++flows;
          }
          stream.row_done();
        });
    std::map<std::int64_t, LaunchConfig> configs;
    for (const LaunchConfigRow& row : schema::read_all<schema::kTable<LaunchConfigRow>>(trace.db()))
      configs.emplace(row.id, row);
    schema::for_each<kLaunchedWork>(
        trace.db(), "ORDER BY g.track_id, g.start_ns, g.id", [&](const LaunchedWork& row) {
          const std::string place = where(pid_of(row.track), row.track);
          std::string args = "\"kind\":\"" + std::string(gpu_activity_kind_name(row.kind)) + "\"";
          if (row.correlation_id) args += ",\"correlation\":" + std::to_string(*row.correlation_id);
          if (row.bytes) args += ",\"bytes\":" + std::to_string(*row.bytes);
          const auto config = row.launch_id ? configs.find(*row.launch_id) : configs.end();
          if (config != configs.end()) {
            const LaunchConfig& c = config->second;
            args += ",\"grid\":[" + std::to_string(c.grid[0]) + "," + std::to_string(c.grid[1]) +
                    "," + std::to_string(c.grid[2]) + "],\"block\":[" + std::to_string(c.block[0]) +
                    "," + std::to_string(c.block[1]) + "," + std::to_string(c.block[2]) +
                    "],\"shared_bytes\":" + std::to_string(c.shared_bytes) +
                    ",\"registers\":" + std::to_string(c.registers);
          }
          stream.event("\"ph\":\"X\",\"name\":" + name(row.name) + ",\"cat\":\"gpu\"," + place +
                       ",\"ts\":" + micros(row.start_ns) + ",\"dur\":" + micros(row.dur_ns) +
                       ",\"args\":{" + args + "}");
          if (row.correlation_id && row.has_launch)
            stream.event(
                "\"ph\":\"f\",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":" +
                std::to_string(*row.correlation_id) + "," + place +
                ",\"ts\":" + micros(row.start_ns));
          stream.row_done();
        });
    return flows;
  }
};

std::uint64_t total_rows(TraceReader& trace) {
  std::uint64_t total = 0;
  for (const auto table : {"range", "instant", "counter", "queue_sample", "grad_ready",
                           "collective", "api_call", "gpu_activity"})
    total += static_cast<std::uint64_t>(
        sql::query_int(trace.db(), std::string("SELECT count(*) FROM ") + table));
  return total;
}

}  // namespace

ChromeExportStats export_chrome_trace(TraceReader& trace, std::ostream& out,
                                      const std::function<void(double)>& progress) {
  EventStream stream(out, progress ? total_rows(trace) : 0, progress);
  Exporter exporter{trace, stream, {}, 0};
  exporter.names.reserve(trace.strings().size());
  for (const auto& text : trace.strings()) exporter.names.push_back(json_string(text));
  const std::string pid = trace.meta_value("pid").value_or("0");
  const auto [end, error] = std::from_chars(pid.data(), pid.data() + pid.size(), exporter.host_pid);
  if (error != std::errc() || end != pid.data() + pid.size())
    throw Error("meta.pid is not a number: '" + pid + "'", trace.path().string());

  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"schema_version\":"
      << json_string(trace.meta_value("schema_version").value_or(""))
      << ",\"command_line\":" << json_string(trace.meta_value("command_line").value_or(""))
      << "},\"traceEvents\":[";
  exporter.metadata();
  exporter.ranges();
  exporter.instants();
  exporter.counters();
  exporter.gradients_and_collectives();
  ChromeExportStats stats;
  stats.flows = exporter.device_work();
  out << "\n]}\n";
  if (!out)
    throw Error("could not write the exported trace", trace.path().string(), "is the disk full?");
  stats.events = stream.count();
  if (progress) progress(1.0);
  return stats;
}

}  // namespace parity::profiler
