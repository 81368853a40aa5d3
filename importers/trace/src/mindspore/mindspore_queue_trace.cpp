#include "mindspore/mindspore_queue_trace.hpp"

#include <charconv>

#include "mindspore/mindspore_csv.hpp"
#include "parity/core/error.hpp"

namespace parity::importers::trace {
namespace {

// The whole numbers of one line, split at spaces; nullopt where one is not.
std::optional<std::vector<std::int64_t>> numbers(std::string_view text) {
  std::vector<std::int64_t> values;
  while (!text.empty()) {
    const std::size_t start = text.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    text.remove_prefix(start);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || (end != text.data() + text.size() && *end != ' ' && *end != '\t'))
      return std::nullopt;
    values.push_back(value);
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  }
  return values;
}

}  // namespace

std::vector<QueueRecord> parse_queue_trace(std::string_view text, const std::string& where) {
  std::vector<QueueRecord> records;
  for_each_line(text, [&](std::size_t line, std::string_view content) {
    const auto fields = numbers(content);
    if (!fields || fields->size() < 4 || fields->size() > 5 || (*fields)[0] < 0 || (*fields)[0] > 1)
      throw Error("\"" + std::string(content.substr(0, 80)) +
                      "\" is not a record \"type extra_info batch_num value timestamp\" of type "
                      "0 or 1",
                  where + ", line " + std::to_string(line),
                  "is it MindData's device_queue_profiling or dataset_iterator_profiling file, "
                  "whole and not cut short?");
    QueueRecord record;
    record.type = static_cast<QueueRecordType>((*fields)[0]);
    record.extra_info = (*fields)[1];
    record.batch = (*fields)[2];
    record.value = (*fields)[3];
    if (fields->size() == 5) record.timestamp_ms = (*fields)[4];
    record.line = line;
    records.push_back(record);
  });
  return records;
}

}  // namespace parity::importers::trace
