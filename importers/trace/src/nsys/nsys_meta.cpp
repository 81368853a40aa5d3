#include "nsys/nsys_meta.hpp"

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

// name/value tables, each row into meta as `prefix` + name.
void read_name_values(NsysSource& source, const std::string& table_name,
                      const std::string& prefix) {
  auto table = source.table(table_name);
  if (!table) return;
  const int name = table->required({"name"});
  const int value = table->column({"value"});
  table->for_each({}, [&](const NsysRow& row) {
    source.assembly().set_meta(prefix + row.text(name).value_or(""), row.text(value).value_or(""));
  });
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
  read_name_values(source, "META_DATA_EXPORT", "import.nsys.export.");
  read_name_values(source, "META_DATA_CAPTURE", "import.nsys.capture.");
  return read_session_start(source);
}

}  // namespace parity::importers::trace
