#include "trace_import_fuzz.hpp"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

#include "fuzz_input.hpp"
#include "parity/core/error.hpp"
#include "parity/importers/trace/trace_import.hpp"
#include "parity/profiler/schema/select.hpp"
#include "parity/profiler/schema/tables.hpp"
#include "parity/profiler/trace_reader.hpp"

namespace {

namespace schema = parity::profiler::schema;
using parity::profiler::RangeRow;

// The import's output: a per-process name, removed before each run (the
// importer writes only where no file is).
std::filesystem::path output_path() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("parity-fuzz-" + std::to_string(::getpid()) + ".out.db");
  return path;
}

void remove_output(const std::filesystem::path& out) {
  std::error_code ignored;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"})
    std::filesystem::remove(out.string() + suffix, ignored);
}

// The imported trace reads back, complete, with ranges nested consistently.
void check_trace(const std::filesystem::path& out) {
  parity::profiler::TraceReader trace(out);
  if (trace.meta_value("complete") != "1") std::abort();
  std::map<std::int64_t, std::uint32_t> depths;  // range id -> depth
  schema::for_each<schema::kTable<RangeRow>, &RangeRow::id, &RangeRow::depth, &RangeRow::parent_id>(
      trace.db(), "ORDER BY id", [&](const RangeRow& range) {
        if (range.parent_id) {
          const auto parent = depths.find(*range.parent_id);
          if (parent == depths.end() || parent->second + 1 != range.depth) std::abort();
        } else if (range.depth != 0) {
          std::abort();
        }
        depths[range.id] = range.depth;
      });
}

}  // namespace

namespace parity::fuzz {

int fuzz_trace_import(const std::uint8_t* data, std::size_t size, std::string_view suffix) {
  const std::filesystem::path in = write_input(data, size, suffix);
  const std::filesystem::path out = output_path();
  remove_output(out);
  bool imported = false;
  try {
    importers::trace::import_trace(in, out);
    imported = true;
  } catch (const Error&) {
    // Refused: that is the contract for input that is not a readable trace.
  }
  if (imported) check_trace(out);
  remove_output(out);
  return 0;
}

}  // namespace parity::fuzz
