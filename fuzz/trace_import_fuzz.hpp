// The whole test of a trace importer under a fuzzer: the input, written to a
// file with the given extension, either imports into a trace database that
// reads back whole, with every range's parent an earlier range one level up,
// or is refused with parity::Error. Anything else (another exception, a
// crash, a sanitizer report) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace parity::fuzz {

// Returns 0, which is what LLVMFuzzerTestOneInput returns.
int fuzz_trace_import(const std::uint8_t* data, std::size_t size, std::string_view suffix);

}  // namespace parity::fuzz
