#include "parity/analyzer/loss/loss_input.hpp"

#include <fstream>

#include "parity/analyzer/loss/loss_log.hpp"
#include "parity/analyzer/loss/trace_loss.hpp"
#include "parity/importers/trace/trace_import.hpp"

namespace parity::analyzer {
namespace {

// The trace importer takes a file that opens with '[' or '{' for JSON; a log
// whose first line is "[WARNING] ME(...)" opens so too. In JSON an array of
// events holds an object ('{') or nothing (']') next, and an object a member
// name ('"') or nothing ('}').
bool opens_like_a_log(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[256] = {};
  in.read(head, sizeof head);
  const std::string text(head, static_cast<std::size_t>(in.gcount()));
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || (text[first] != '[' && text[first] != '{')) return false;
  const std::size_t next = text.find_first_not_of(" \t\r\n", first + 1);
  if (next == std::string::npos) return false;
  return text[first] == '[' ? text[next] != '{' && text[next] != ']'
                            : text[next] != '"' && text[next] != '}';
}

}  // namespace

LossCurve read_loss_curve(const std::filesystem::path& path, const LossInputOptions& options) {
  const auto format = importers::trace::sniff_trace_format(path);
  if (format == importers::trace::TraceFormat::kParity) return read_trace_loss(path);
  if (format == importers::trace::TraceFormat::kChromeJson && !opens_like_a_log(path)) {
    LossCurve curve = read_trace_loss(importers::trace::readable_trace(path));
    curve.source = path.string();  // the user's file, not the import's cache
    curve.kind = "Chrome trace, imported";
    return curve;
  }
  if (options.pattern.empty()) return read_mindspore_log(path, options.steps_per_epoch);
  return read_pattern_log(path, LossPattern(options.pattern, options.pattern_option),
                          options.steps_per_epoch);
}

}  // namespace parity::analyzer
