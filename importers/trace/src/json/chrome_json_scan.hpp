// The scanner behind read_chrome_json: walks a Chrome trace document on the
// calling thread and hands each event's text to the callbacks as it finds
// it. read_chrome_json runs it on a thread of its own (chrome_json_pipeline).
#pragma once

#include "json/chrome_json_stream.hpp"

namespace parity::importers::trace {

// read_chrome_json's contract, with every callback called on this thread,
// each value's text valid only during its callback.
JsonStreamResult scan_chrome_json(const std::filesystem::path& path,
                                  const JsonStreamCallbacks& callbacks);

}  // namespace parity::importers::trace
