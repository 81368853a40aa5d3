#include "nsys/nsys_meta.hpp"

#include <map>

namespace parity::importers::trace {
namespace {

void read_gpus(NsysSource& source) {
  const bool modern = source.table("TARGET_INFO_GPU").has_value();
  auto table = source.table(modern ? "TARGET_INFO_GPU" : "TARGET_INFO_CUDA_GPU");
  if (!table) return;
  const int id = table->required({"id", "deviceId"});
  const int name = table->column({"name"});
  const int sm_count = table->column({"smCount", "numMultiprocessors"});
  const int memory = table->column({"totalMemory", "totalGlobalMem"});
  const int major = table->column({"computeMajor", "computeCapabilityMajor"});
  const int minor = table->column({"computeMinor", "computeCapabilityMinor"});
  std::int64_t count = 0;
  table->for_each({}, [&](const NsysRow& row) {
    const std::string key = "gpu." + std::to_string(row.integer_or(id, 0)) + ".";
    const auto set = [&](const std::string& what, std::optional<std::int64_t> value) {
      if (value) source.assembly().set_meta(key + what, std::to_string(*value));
    };
    if (const auto text = row.text(name)) source.assembly().set_meta(key + "name", *text);
    set("sm_count", row.integer(sm_count));
    set("memory_bytes", row.integer(memory));
    if (const auto high = row.integer(major))
      source.assembly().set_meta(
          key + "compute_capability",
          std::to_string(*high) + "." + std::to_string(row.integer_or(minor, 0)));
    ++count;
  });
  source.assembly().set_meta("gpu.count", std::to_string(count));
}

// A name/value table into meta, each name as `prefix` + name. A name that
// repeats (CAPTURE_EVENT_TYPE, once per kind of event traced) keeps its
// values joined by ", ". The profiled processes' environment variables are
// left out: they are no fact about the run Parity reads, and may hold secrets.
void read_name_values(NsysSource& source, std::optional<NsysTable> table,
                      const std::string& prefix) {
  if (!table) return;
  const int name = table->required({"name"});
  const int value = table->column({"value"});
  std::map<std::string, std::string> values;
  table->for_each({}, [&](const NsysRow& row) {
    const std::string key = row.text(name).value_or("");
    if (key.ends_with("ENVIRONMENT_VARIABLE"))
      return source.skip("environment variables of the profiled processes (" + table->name() +
                         ", left out of the trace)");
    const std::string text = row.text(value).value_or("");
    const auto [it, first] = values.emplace(key, text);
    if (!first) it->second += ", " + text;
  });
  for (const auto& [key, text] : values) source.assembly().set_meta(prefix + key, text);
}

void read_host(NsysSource& source) {
  auto table = source.table("TARGET_INFO_SYSTEM_ENV");
  if (!table) return;
  const int name = table->required({"name"});
  const int value = table->required({"value"});
  table->for_each({}, [&](const NsysRow& row) {
    if (row.text(name) == "Hostname")
      source.assembly().set_meta("host", row.text(value).value_or(""));
  });
}

std::optional<std::int64_t> read_session_start(NsysSource& source) {
  auto table = source.table("TARGET_INFO_SESSION_START_TIME");
  if (!table) return std::nullopt;
  const int epoch = table->required({"utcEpochNs"});
  const int utc = table->column({"utcTime"});
  std::optional<std::int64_t> start;
  table->for_each({}, [&](const NsysRow& row) {
    start = row.integer(epoch);
    if (const auto text = row.text(utc))
      source.assembly().set_meta("import.nsys.session_start_utc", *text);
  });
  return start;
}

}  // namespace

std::optional<std::int64_t> read_nsys_meta(NsysSource& source) {
  read_gpus(source);
  read_host(source);
  // EXPORT_META_DATA is the older releases' name (2022.2's); its keys are
  // mostly the same (EXPORT_OUTUPT_FILE is spelled so by nsys).
  auto exported = source.table("META_DATA_EXPORT");
  read_name_values(source, exported ? std::move(exported) : source.table("EXPORT_META_DATA"),
                   "import.nsys.export.");
  read_name_values(source, source.table("META_DATA_CAPTURE"), "import.nsys.capture.");
  return read_session_start(source);
}

}  // namespace parity::importers::trace
