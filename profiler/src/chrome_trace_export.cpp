#include "parity/profiler/chrome_trace_export.hpp"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "parity/core/error.hpp"

namespace parity::profiler {
namespace {

// GPU devices appear as their own processes, after the host process.
constexpr std::int64_t kGpuPidBase = 1'000'000;

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
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
  const std::uint64_t magnitude = ns < 0 ? static_cast<std::uint64_t>(-ns) : static_cast<std::uint64_t>(ns);
  std::snprintf(text, sizeof text, "%s%" PRIu64 ".%03" PRIu64, sign, magnitude / 1000,
                magnitude % 1000);
  return text;
}

class EventStream {
 public:
  EventStream(std::ostream& out, std::uint64_t total_rows, const std::function<void(double)>& progress)
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
      if (track.kind == TrackKind::kGpuStream && std::find(devices.begin(), devices.end(), pid) == devices.end()) {
        devices.push_back(pid);
        stream.event("\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) +
                     ",\"args\":{\"name\":" +
                     json_string("GPU " + std::to_string(pid - kGpuPidBase)) + "}");
      }
      stream.event("\"ph\":\"M\",\"name\":\"thread_name\"," + where(pid, track.id) +
                   ",\"args\":{\"name\":" + name(track.name) + "}");
    }
  }

  void ranges() {
    sql::Statement rows(trace.db(),
                        "SELECT track_id, start_ns, dur_ns, name_id, category, depth, arg "
                        "FROM range ORDER BY track_id, start_ns, id");
    while (rows.step()) {
      const auto track = static_cast<TrackId>(rows.column_int(0));
      std::string body = "\"ph\":\"X\",\"name\":" + name(rows.column_int(3)) + ",\"cat\":\"" +
                         std::string(category_name(static_cast<Category>(rows.column_int(4)))) +
                         "\"," + where(pid_of(track), track) + ",\"ts\":" +
                         micros(rows.column_int(1)) + ",\"dur\":" + micros(rows.column_int(2)) +
                         ",\"args\":{\"depth\":" + std::to_string(rows.column_int(5));
      if (!rows.column_is_null(6)) body += ",\"arg\":" + std::to_string(rows.column_int(6));
      stream.event(body + "}");
      stream.row_done();
    }
  }

  void instants() {
    sql::Statement rows(trace.db(),
                        "SELECT track_id, ts_ns, name_id, category FROM instant ORDER BY track_id, ts_ns");
    while (rows.step()) {
      const auto track = static_cast<TrackId>(rows.column_int(0));
      stream.event("\"ph\":\"i\",\"s\":\"t\",\"name\":" + name(rows.column_int(2)) + ",\"cat\":\"" +
                   std::string(category_name(static_cast<Category>(rows.column_int(3)))) + "\"," +
                   where(pid_of(track), track) + ",\"ts\":" + micros(rows.column_int(1)));
      stream.row_done();
    }
  }

  void counters() {
    sql::Statement rows(trace.db(),
                        "SELECT c.ts_ns, c.value, t.name_id FROM counter c JOIN track t ON t.id = "
                        "c.track_id ORDER BY c.track_id, c.ts_ns");
    while (rows.step()) {
      char value[40];
      std::snprintf(value, sizeof value, "%.17g", rows.column_double(1));
      stream.event("\"ph\":\"C\",\"name\":" + name(rows.column_int(2)) + ",\"pid\":" +
                   std::to_string(host_pid) + ",\"ts\":" + micros(rows.column_int(0)) +
                   ",\"args\":{\"value\":" + value + "}");
      stream.row_done();
    }
    sql::Statement queues(trace.db(),
                          "SELECT q.ts_ns, q.depth, q.capacity, t.name_id FROM queue_sample q "
                          "JOIN track t ON t.id = q.track_id ORDER BY q.track_id, q.ts_ns");
    while (queues.step()) {
      stream.event("\"ph\":\"C\",\"name\":" + name(queues.column_int(3)) + ",\"pid\":" +
                   std::to_string(host_pid) + ",\"ts\":" + micros(queues.column_int(0)) +
                   ",\"args\":{\"depth\":" + std::to_string(queues.column_int(1)) +
                   ",\"capacity\":" + std::to_string(queues.column_int(2)) + "}");
      stream.row_done();
    }
  }

  void gradients_and_collectives() {
    sql::Statement grads(trace.db(),
                         "SELECT g.track_id, g.ts_ns, g.param_idx, g.bytes, g.step, p.name "
                         "FROM grad_ready g LEFT JOIN parameter p ON p.idx = g.param_idx "
                         "ORDER BY g.track_id, g.ts_ns");
    while (grads.step()) {
      const auto track = static_cast<TrackId>(grads.column_int(0));
      const std::string param = grads.column_is_null(5) ? "#" + std::to_string(grads.column_int(2))
                                                        : grads.column_text(5);
      stream.event("\"ph\":\"i\",\"s\":\"t\",\"name\":" + json_string("grad ready " + param) +
                   ",\"cat\":\"grad_ready\"," + where(pid_of(track), track) + ",\"ts\":" +
                   micros(grads.column_int(1)) + ",\"args\":{\"param\":" +
                   std::to_string(grads.column_int(2)) + ",\"bytes\":" +
                   std::to_string(grads.column_int(3)) + ",\"step\":" +
                   std::to_string(grads.column_int(4)) + "}");
      stream.row_done();
    }
    sql::Statement collectives(trace.db(),
                               "SELECT track_id, start_ns, dur_ns, op, bytes, dtype, bucket, "
                               "first_param, last_param, rank, step FROM collective "
                               "ORDER BY track_id, start_ns");
    while (collectives.step()) {
      const auto track = static_cast<TrackId>(collectives.column_int(0));
      stream.event(
          "\"ph\":\"X\",\"name\":" +
          json_string(std::string(collective_op_name(static_cast<CollectiveOp>(collectives.column_int(3)))) +
                      " bucket " + std::to_string(collectives.column_int(6))) +
          ",\"cat\":\"collective\"," + where(pid_of(track), track) + ",\"ts\":" +
          micros(collectives.column_int(1)) + ",\"dur\":" + micros(collectives.column_int(2)) +
          ",\"args\":{\"bytes\":" + std::to_string(collectives.column_int(4)) +
          ",\"dtype\":" + json_string(collectives.column_text(5)) +
          ",\"first_param\":" + std::to_string(collectives.column_int(7)) +
          ",\"last_param\":" + std::to_string(collectives.column_int(8)) +
          ",\"rank\":" + std::to_string(collectives.column_int(9)) +
          ",\"step\":" + std::to_string(collectives.column_int(10)) + "}");
      stream.row_done();
    }
  }

  // API calls and GPU work; a flow arrow joins a launch to the work it queued.
  std::uint64_t device_work() {
    sql::Statement calls(trace.db(),
                         "SELECT track_id, start_ns, dur_ns, kind, name_id, correlation_id, "
                         "EXISTS(SELECT 1 FROM gpu_activity g WHERE g.correlation_id = "
                         "a.correlation_id) FROM api_call a ORDER BY track_id, start_ns, id");
    std::uint64_t flows = 0;
    while (calls.step()) {
      const auto track = static_cast<TrackId>(calls.column_int(0));
      const std::string place = where(pid_of(track), track);
      std::string body = "\"ph\":\"X\",\"name\":" + name(calls.column_int(4)) + ",\"cat\":\"" +
                         std::string(api_kind_name(static_cast<ApiKind>(calls.column_int(3)))) +
                         "\"," + place + ",\"ts\":" + micros(calls.column_int(1)) +
                         ",\"dur\":" + micros(calls.column_int(2));
      if (!calls.column_is_null(5))
        body += ",\"args\":{\"correlation\":" + std::to_string(calls.column_int(5)) + "}";
      stream.event(body);
      if (!calls.column_is_null(5) && calls.column_int(6)) {
        stream.event("\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":" +
                     std::to_string(calls.column_int(5)) + "," + place +
                     ",\"ts\":" + micros(calls.column_int(1)));
        ++flows;
      }
      stream.row_done();
    }
    sql::Statement work(trace.db(),
                        "SELECT g.track_id, g.start_ns, g.dur_ns, g.kind, g.name_id, "
                        "g.correlation_id, g.bytes, l.grid_x, l.grid_y, l.grid_z, l.block_x, "
                        "l.block_y, l.block_z, l.shared_bytes, l.registers, "
                        "EXISTS(SELECT 1 FROM api_call a WHERE a.correlation_id = g.correlation_id) "
                        "FROM gpu_activity g LEFT JOIN launch_config l ON l.id = g.launch_id "
                        "ORDER BY g.track_id, g.start_ns, g.id");
    while (work.step()) {
      const auto track = static_cast<TrackId>(work.column_int(0));
      const std::string place = where(pid_of(track), track);
      std::string args = "\"kind\":\"" +
                         std::string(gpu_activity_kind_name(static_cast<GpuActivityKind>(work.column_int(3)))) +
                         "\"";
      if (!work.column_is_null(5)) args += ",\"correlation\":" + std::to_string(work.column_int(5));
      if (!work.column_is_null(6)) args += ",\"bytes\":" + std::to_string(work.column_int(6));
      if (!work.column_is_null(7)) {
        args += ",\"grid\":[" + std::to_string(work.column_int(7)) + "," +
                std::to_string(work.column_int(8)) + "," + std::to_string(work.column_int(9)) +
                "],\"block\":[" + std::to_string(work.column_int(10)) + "," +
                std::to_string(work.column_int(11)) + "," + std::to_string(work.column_int(12)) +
                "],\"shared_bytes\":" + std::to_string(work.column_int(13)) +
                ",\"registers\":" + std::to_string(work.column_int(14));
      }
      stream.event("\"ph\":\"X\",\"name\":" + name(work.column_int(4)) + ",\"cat\":\"gpu\"," +
                   place + ",\"ts\":" + micros(work.column_int(1)) + ",\"dur\":" +
                   micros(work.column_int(2)) + ",\"args\":{" + args + "}");
      if (!work.column_is_null(5) && work.column_int(15))
        stream.event("\"ph\":\"f\",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":" +
                     std::to_string(work.column_int(5)) + "," + place +
                     ",\"ts\":" + micros(work.column_int(1)));
      stream.row_done();
    }
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
      << json_string(trace.meta_value("schema_version").value_or("")) << ",\"command_line\":"
      << json_string(trace.meta_value("command_line").value_or("")) << "},\"traceEvents\":[";
  exporter.metadata();
  exporter.ranges();
  exporter.instants();
  exporter.counters();
  exporter.gradients_and_collectives();
  ChromeExportStats stats;
  stats.flows = exporter.device_work();
  out << "\n]}\n";
  if (!out) throw Error("could not write the exported trace", trace.path().string(), "is the disk full?");
  stats.events = stream.count();
  if (progress) progress(1.0);
  return stats;
}

}  // namespace parity::profiler
