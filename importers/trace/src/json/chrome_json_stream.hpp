// Reads a Chrome trace-event document (the JSON Object Format, whose
// "traceEvents" member holds the events, or the JSON Array Format, a bare
// array of them), plain or gzip-compressed, in bounded memory: the file is
// scanned a chunk at a time and each event is handed over as its own text,
// never the whole document. Events larger than kMaxValueBytes, and other
// top-level members larger than that, are refused.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace parity::importers::trace {

// One element of the event array. `text` is followed by at least
// kValuePadding readable bytes (what simdjson needs to parse it in place).
struct RawJsonValue {
  std::string_view text;
  std::uint64_t offset = 0;  // of its first byte in the (uncompressed) document
};

inline constexpr std::size_t kValuePadding = 64;
inline constexpr std::size_t kMaxValueBytes = std::size_t(64) << 20;

struct JsonStreamCallbacks {
  std::function<void(const RawJsonValue& event)> on_event;
  // Every top-level member but "traceEvents" (Object Format only).
  std::function<void(std::string_view key, const RawJsonValue& value)> on_member;
  // Bytes of the file consumed so far (compressed bytes for a .gz), for progress.
  std::function<void(std::uint64_t file_bytes)> on_progress;
};

struct JsonStreamResult {
  bool object_format = false;   // {"traceEvents": [...]} rather than a bare array
  bool unclosed_array = false;  // the Array Format's optional closing ']' was absent
  std::uint64_t document_bytes = 0;
};

// Throws parity::Error naming the file, the byte offset and what was expected
// for input that is not such a document (truncated, not JSON, nested wrong).
JsonStreamResult read_chrome_json(const std::filesystem::path& path,
                                  const JsonStreamCallbacks& callbacks);

}  // namespace parity::importers::trace
