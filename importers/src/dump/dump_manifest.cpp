#include "parity/importers/dump/dump_manifest.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "parity/core/error.hpp"

namespace parity::importers {
namespace {

using json = nlohmann::ordered_json;

// Every manifest fault points at the format's description.
Error manifest_error(std::string what, const std::string& where) {
  return Error(std::move(what), where, "a dump's manifest is described in docs/formats/dump.md");
}

json optional_number(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json stats_json(const TensorStats& stats) {
  return json{{"min", optional_number(stats.min)},   {"max", optional_number(stats.max)},
              {"mean", optional_number(stats.mean)}, {"std", optional_number(stats.std)},
              {"l2", stats.l2},                      {"nan", stats.nan},
              {"inf", stats.inf}};
}

json parse_object(std::string_view line, const std::string& where) {
  json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object())
    throw manifest_error("not a JSON object: each line of a manifest is one", where);
  return value;
}

const json& field(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) throw manifest_error(std::string("the field '") + key + "' is missing", where);
  return *it;
}

std::string string_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_string()) throw manifest_error(std::string("the field '") + key + "' is not a string", where);
  return value.get<std::string>();
}

std::int64_t integer_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_number_integer())
    throw manifest_error(std::string("the field '") + key + "' is not an integer", where);
  return value.get<std::int64_t>();
}

std::optional<double> optional_double(const json& stats, const char* key, const std::string& where) {
  const json& value = field(stats, key, where);
  if (value.is_null()) return std::nullopt;
  if (!value.is_number()) throw manifest_error(std::string("stats.") + key + " is not a number", where);
  return value.get<double>();
}

TensorStats parse_stats(const json& value, const std::string& where) {
  if (!value.is_object()) throw manifest_error("the field 'stats' is not an object", where);
  TensorStats stats;
  stats.min = optional_double(value, "min", where);
  stats.max = optional_double(value, "max", where);
  stats.mean = optional_double(value, "mean", where);
  stats.std = optional_double(value, "std", where);
  const auto l2 = optional_double(value, "l2", where);
  if (!l2) throw manifest_error("stats.l2 is null", where);
  stats.l2 = *l2;
  stats.nan = integer_field(value, "nan", where);
  stats.inf = integer_field(value, "inf", where);
  if (stats.nan < 0 || stats.inf < 0) throw manifest_error("a negative NaN or Inf count", where);
  return stats;
}

// The settings' sections, by their names in the header.
constexpr std::pair<const char*, std::map<std::string, std::string> RunSettings::*> kSettingSections[] = {
    {"config", &RunSettings::config},
    {"versions", &RunSettings::versions},
    {"environment", &RunSettings::environment}};

// A section as written by any producer: strings kept, other values as JSON text.
std::map<std::string, std::string> setting_section(const json& object, const char* key,
                                                   const std::string& where) {
  std::map<std::string, std::string> section;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return section;
  if (!it->is_object())
    throw manifest_error(std::string("the header's '") + key + "' is not an object", where);
  for (const auto& [name, value] : it->items())
    section[name] = value.is_string() ? value.get<std::string>() : value.dump();
  return section;
}

}  // namespace

std::string DumpRecord::describe() const {
  std::string text;
  if (!phase.empty()) text = "step " + std::to_string(step) + " " + phase + " ";
  text += name;
  if (!role.empty()) text += " (" + role + ")";
  return text;
}

std::string manifest_header_line(const DumpHeader& header) {
  json line{{"format", kDumpFormat},
            {"version", kDumpVersion},
            {"producer", header.producer},
            {"model", header.model},
            {"stats_only", header.stats_only}};
  for (const auto& [key, member] : kSettingSections)
    if (!(header.settings.*member).empty()) line[key] = header.settings.*member;
  return line.dump();
}

std::string manifest_record_line(const DumpRecord& record) {
  json line{{"index", record.index}, {"step", record.step},   {"phase", record.phase},
            {"name", record.name},   {"module", record.module}, {"op", record.op},
            {"role", record.role},   {"dtype", dtype_name(record.dtype)},
            {"shape", record.shape}};
  line["file"] = record.file ? json(*record.file) : json(nullptr);
  line["stats"] = record.stats ? stats_json(*record.stats) : json(nullptr);
  // Non-finite statistics cannot occur (they are over finite elements), so
  // dump() never meets a NaN it would have to write as null.
  return line.dump();
}

DumpHeader parse_manifest_header(std::string_view line, const std::string& where) {
  const json object = parse_object(line, where);
  if (!object.contains("format"))
    throw Error("the first line is not a parity-dump header (no 'format')", where,
                "a dump's manifest starts with {\"format\": \"parity-dump\", \"version\": 1}");
  const std::string format = string_field(object, "format", where);
  if (format != kDumpFormat)
    throw manifest_error("the format is '" + format + "', not parity-dump", where);
  const std::int64_t version = integer_field(object, "version", where);
  if (version < 1 || version > kDumpVersion)
    throw Error("manifest version " + std::to_string(version) + " is not supported (this build reads 1)",
                where, "use a newer parity");
  DumpHeader header;
  if (object.contains("producer") && object["producer"].is_string()) header.producer = object["producer"];
  if (object.contains("model") && object["model"].is_string()) header.model = object["model"];
  if (object.contains("stats_only") && object["stats_only"].is_boolean())
    header.stats_only = object["stats_only"];
  for (const auto& [key, member] : kSettingSections)
    header.settings.*member = setting_section(object, key, where);
  return header;
}

DumpRecord parse_manifest_record(std::string_view line, const std::string& where) {
  const json object = parse_object(line, where);
  DumpRecord record;
  record.index = integer_field(object, "index", where);
  record.step = integer_field(object, "step", where);
  record.phase = string_field(object, "phase", where);
  record.name = string_field(object, "name", where);
  record.module = string_field(object, "module", where);
  record.op = string_field(object, "op", where);
  record.role = string_field(object, "role", where);
  const std::string dtype = string_field(object, "dtype", where);
  const auto parsed = parse_dtype(dtype);
  if (!parsed) throw manifest_error("unknown dtype '" + dtype + "'", where);
  record.dtype = *parsed;
  const json& shape = field(object, "shape", where);
  if (!shape.is_array()) throw manifest_error("the field 'shape' is not a list", where);
  for (const json& dim : shape) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0)
      throw manifest_error("the shape holds something other than non-negative integers", where);
    record.shape.push_back(dim.get<std::int64_t>());
  }
  if (!checked_byte_size(record.dtype, record.shape))
    throw manifest_error("the shape " + shape_to_string(record.shape) + " is too large", where);
  const json& file = field(object, "file", where);
  if (file.is_string()) {
    record.file = file.get<std::string>();
    if (record.file->empty() || record.file->front() == '/' ||
        record.file->find("..") != std::string::npos)
      throw manifest_error("the file '" + *record.file + "' is not a path inside the dump", where);
  } else if (!file.is_null()) {
    throw manifest_error("the field 'file' is neither a path nor null", where);
  }
  const json& stats = field(object, "stats", where);
  if (!stats.is_null()) record.stats = parse_stats(stats, where);
  if (record.name.empty()) throw manifest_error("the field 'name' is empty", where);
  return record;
}

std::string dump_file_name(const DumpRecord& record) {
  char index[32];
  std::snprintf(index, sizeof index, "%06lld", static_cast<long long>(record.index));
  return "tensors/" + std::string(index) + "-s" + std::to_string(record.step) + "-" + record.phase +
         "-" + record.name + "-" + record.role + ".npy";
}

}  // namespace parity::importers
