// Fuzzes the Chrome trace-event JSON importer (plain or gzip, Object or Array
// Format): any input either imports into a trace database that reads back
// whole or is refused with parity::Error (trace_import_fuzz.hpp).
#include "trace_import_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return parity::fuzz::fuzz_trace_import(data, size, ".json");
}
