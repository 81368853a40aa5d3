#include "nsys/nsys_source.hpp"

#include "parity/core/error.hpp"

namespace parity::importers::trace {

bool nsys_time_in_range(std::int64_t time) {
  constexpr std::int64_t kLimit = std::int64_t(1) << 61;
  return time > -kLimit && time < kLimit;
}

std::optional<std::int64_t> nsys_duration(std::int64_t start, std::optional<std::int64_t> end) {
  if (!end || *end < start || !nsys_time_in_range(start) || !nsys_time_in_range(*end))
    return std::nullopt;
  return *end - start;
}

NsysSource::NsysSource(const std::filesystem::path& path, TraceAssembly& assembly,
                       ImportSummary& summary)
    : db_(path, profiler::sql::Database::Mode::kReadOnly), assembly_(assembly), summary_(summary) {
  auto strings = table("StringIds");
  if (!strings)
    throw Error("an SQLite database without a StringIds table is no Nsight Systems export",
                path.string(), "export the report with nsys export --type sqlite REPORT.nsys-rep");
  const int id = strings->required({"id"});
  const int value = strings->required({"value"});
  strings->for_each({}, [&](const NsysRow& row) {
    if (const auto key = row.integer(id)) strings_[*key] = row.text(value).value_or("");
  });
}

std::optional<NsysTable> NsysSource::table(const std::string& name) {
  auto found = NsysTable::open(db_, name);
  if (found) tables_read_.insert(name);
  return found;
}

std::string NsysSource::text(std::optional<std::int64_t> string_id) const {
  if (!string_id) return {};
  const auto it = strings_.find(*string_id);
  return it != strings_.end() ? it->second : "(string " + std::to_string(*string_id) + ")";
}

std::map<std::int64_t, std::string> NsysSource::enum_labels(const std::string& table_name) {
  std::map<std::int64_t, std::string> labels;
  auto values = table(table_name);
  if (!values) return labels;
  const int id = values->required({"id"});
  const int label = values->column({"label", "name"});
  values->for_each({}, [&](const NsysRow& row) {
    if (const auto key = row.integer(id)) labels[*key] = row.text(label).value_or("");
  });
  return labels;
}

}  // namespace parity::importers::trace
