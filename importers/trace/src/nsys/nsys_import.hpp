// Nsight Systems SQLite exports (nsys export --type sqlite) into a
// TraceAssembly. Every table is optional and every column is looked up by
// name, so exports of nsys releases from 2020 to today are read alike.
// docs/import.md says what becomes what; docs/formats/nsight-systems-sqlite.md
// describes the format.
#pragma once

#include <filesystem>

#include "parity/importers/trace/trace_import.hpp"
#include "trace_assembly.hpp"

namespace parity::importers::trace {

// Whether an SQLite file is an nsys export: it has a StringIds table and no
// meta table (a Parity trace's). False where SQLite cannot read it.
bool is_nsys_export(const std::filesystem::path& path);

// Throws the parity::Error for importing an SQLite file that is no nsys
// export: already a Parity trace, neither, or unreadable.
[[noreturn]] void refuse_sqlite_import(const std::filesystem::path& path);

// Reads `in` whole into `assembly`, filling `summary`.
void read_nsys_sqlite(const std::filesystem::path& in, const ImportOptions& options,
                      TraceAssembly& assembly, ImportSummary& summary);

}  // namespace parity::importers::trace
