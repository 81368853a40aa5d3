#include "parity/analyzer/loss/loss_log.hpp"

#include <charconv>
#include <fstream>
#include <functional>
#include <regex>

#include "parity/core/error.hpp"

namespace parity::analyzer {
namespace {

// LossMonitor's line, as MindSpore and parity-train print it; commas optional.
const std::regex kMindSporeLine(
    R"(epoch:\s*([0-9]{1,18})\s*,?\s*step:\s*([0-9]{1,18})\s*,?\s*loss is\s*(.*))");

// Calls `on_line` with each line of the file and its number (from 1).
void for_each_line(const std::filesystem::path& path,
                   const std::function<void(const std::string&, std::int64_t)>& on_line) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw Error("cannot read the log", path.string(),
                "check the path: give a training log, a trace (.db) or a Chrome trace (.json)");
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    on_line(line, number);
  }
}

}  // namespace

std::optional<double> mindspore_loss_value(const std::string& text) {
  std::size_t at = 0;
  const std::size_t tensor = text.find("Tensor(");
  if (tensor != std::string::npos && text.find_first_not_of(" ([") == tensor) {
    const std::size_t value = text.find("value=", tensor);
    if (value == std::string::npos) return std::nullopt;
    at = value + 6;
  }
  at = text.find_first_not_of(" \t[(", at);
  if (at == std::string::npos) return std::nullopt;
  const char* begin = text.data() + at + (text[at] == '+' ? 1 : 0);
  double value = 0;
  const auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  if (error != std::errc() || end == begin) return std::nullopt;
  return value;
}

LossCurve read_mindspore_log(const std::filesystem::path& path,
                             std::optional<std::int64_t> steps_per_epoch) {
  std::vector<LogRecord> records;
  for_each_line(path, [&](const std::string& line, std::int64_t number) {
    std::smatch match;
    if (line.find("loss is") == std::string::npos ||
        !std::regex_search(line, match, kMindSporeLine))
      return;
    const std::optional<double> loss = mindspore_loss_value(match[3].str());
    if (!loss)
      throw Error("a loss line whose loss is no number: '" + line + "'",
                  path.string() + ": line " + std::to_string(number),
                  "the loss should read like 'loss is 2.30', 'loss is [2.30]' or "
                  "'loss is Tensor(shape=[], dtype=Float32, value= 2.30)'; a truncated or "
                  "corrupt log loses its last line: cut it off");
    records.push_back({std::stoll(match[1].str()), std::stoll(match[2].str()), *loss, number});
  });
  return number_steps(records, path.string(), "MindSpore log", steps_per_epoch);
}

LossCurve read_pattern_log(const std::filesystem::path& path, const LossPattern& pattern,
                           std::optional<std::int64_t> steps_per_epoch) {
  std::vector<LogRecord> records;
  std::int64_t lines = 0;
  std::string first_line;
  for_each_line(path, [&](const std::string& line, std::int64_t number) {
    lines = number;
    if (first_line.empty()) first_line = line;
    if (std::optional<LogRecord> record = pattern.match(line)) {
      record->line = number;
      records.push_back(*record);
    }
  });
  if (records.empty())
    throw Error("no line matches the pattern '" + pattern.text() + "'",
                path.string() + ": lines 1-" + std::to_string(lines),
                lines ? "line 1 reads '" + first_line.substr(0, 120) +
                            "': write the pattern as a loss line reads, with {loss} for the loss"
                      : std::string("the file is empty"));
  return number_steps(records, path.string(), "pattern log", steps_per_epoch);
}

}  // namespace parity::analyzer
