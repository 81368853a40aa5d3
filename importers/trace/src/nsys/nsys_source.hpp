// What every reader of an Nsight Systems SQLite export shares: the open
// database, its interned strings (StringIds), the trace being assembled and
// the summary that counts what became rows and what did not.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "nsys/nsys_table.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "parity/profiler/sqlite.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// The length of a row that runs from `start` to `end`; nullopt where it has
// no end, ends before it starts, or either time lies beyond 2^61 ns (73
// years) from the session's start, which no real session does: refusing
// those keeps every later sum and difference of times within 64 bits.
std::optional<std::int64_t> nsys_duration(std::int64_t start, std::optional<std::int64_t> end);
bool nsys_time_in_range(std::int64_t time);

class NsysSource {
 public:
  // Opens the export read-only and loads StringIds; parity::Error for a file
  // that SQLite cannot read or an export without StringIds.
  NsysSource(const std::filesystem::path& path, TraceAssembly& assembly, ImportSummary& summary);

  // The table, noted as read (tables never opened are counted as not imported).
  std::optional<NsysTable> table(const std::string& name);
  // The text of a StringIds id; "" for NULL, "(string N)" for an id StringIds lacks.
  std::string text(std::optional<std::int64_t> string_id) const;
  // Interned in the trace: the name of a row.
  NameId name(std::optional<std::int64_t> string_id) { return assembly_.name(text(string_id)); }

  // An ENUM_* table's labels by id ("Device-to-Host"); empty where the export has none.
  std::map<std::int64_t, std::string> enum_labels(const std::string& table_name);

  void count(const std::string& what, std::uint64_t n = 1) { summary_.imported[what] += n; }
  void skip(const std::string& what, std::uint64_t n = 1) { summary_.not_imported[what] += n; }
  void note(std::string text) { summary_.notes.push_back(std::move(text)); }
  bool imported(const std::string& what) const { return summary_.imported.count(what) > 0; }

  profiler::sql::Database& db() { return db_; }
  TraceAssembly& assembly() { return assembly_; }
  ImportSummary& summary() { return summary_; }
  const std::set<std::string>& tables_read() const { return tables_read_; }

 private:
  profiler::sql::Database db_;
  TraceAssembly& assembly_;
  ImportSummary& summary_;
  std::unordered_map<std::int64_t, std::string> strings_;
  std::set<std::string> tables_read_;
};

}  // namespace parity::importers::trace
