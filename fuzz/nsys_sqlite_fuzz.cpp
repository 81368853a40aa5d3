// Fuzzes the Nsight Systems SQLite importer: the input is written to a
// .sqlite file and imported; it either becomes a trace database that reads
// back whole or is refused with parity::Error (trace_import_fuzz.hpp). The
// seed corpus is two tiny exports from tests/importers/trace/nsys_fixture.py
// and a cut-down real nsys 2022.2 export (real_2022.2_saxpy_reduced.sqlite;
// its origin and licence are in tests/importers/trace/data/nsys/README.md);
// libFuzzer's mutations reach damaged pages, odd column types and NULLs.
#include "trace_import_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return parity::fuzz::fuzz_trace_import(data, size, ".sqlite");
}
