#include "parity/analyzer/report/name_elision.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

namespace parity::analyzer {
namespace {

constexpr std::size_t kMinWidth = 24;
constexpr std::size_t kSnap = 8;      // how far a cut moves to land after a delimiter
constexpr std::size_t kContext = 16;  // how far before the first difference a window may start
constexpr std::size_t kShortTail = 8;

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation(c); }));
}

// Moves `at` forward to the first byte of a UTF-8 character.
std::size_t char_start(std::string_view text, std::size_t at) {
  while (at < text.size() && is_continuation(text[at])) ++at;
  return at;
}

// Where a cut may fall: between the parts of a C++ name, or of an identifier.
bool is_delimiter(char c) {
  return c == ':' || c == ',' || c == ' ' || c == '<' || c == '(' || c == '_';
}

bool is_punctuation(char c) {
  return c == ':' || c == ',' || c == ' ' || c == '<' || c == '>' || c == '(' || c == ')' ||
         c == '*' || c == '&';
}

// Where a window showing the difference at `differs_at` starts: at the
// identifier just before it ("GemmShape<" of "GemmShape<128, ..."), else
// after the nearest delimiter within kContext, never before `floor`.
std::size_t window_start(std::string_view text, std::size_t differs_at, std::size_t floor) {
  std::size_t at = differs_at;
  while (at > floor && is_punctuation(text[at - 1])) --at;
  while (at > floor && !is_punctuation(text[at - 1])) --at;
  if (differs_at - at <= kContext) return at;
  for (at = std::max(floor, differs_at - kContext); at < differs_at; ++at)
    if (at > 0 && is_delimiter(text[at - 1])) return at;
  return differs_at;
}

// The name without a kernel's return type and without its parameter list
// (which in demangled kernel names mostly repeats the template arguments).
std::string compact(std::string_view name) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  if (!name.ends_with(')')) return std::string(name);
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') {
      ++depth;
    } else if (name[i] == '(' && --depth == 0) {
      if (i > 0) name = name.substr(0, i);
      break;
    }
  }
  return std::string(name);
}

struct Span {
  std::size_t start = 0, end = 0;
};

// The function name with the `<` that opens its template arguments; its
// unqualified part when the qualified one takes more than half the width; the
// start of the name when it has no template arguments.
Span function_name(std::string_view text, std::size_t width) {
  const std::size_t open = text.find('<');
  if (open != std::string_view::npos) {
    if (open + 1 <= width / 2) return {0, open + 1};
    const std::size_t scope = text.rfind("::", open);
    if (scope != std::string_view::npos && open - scope - 1 <= width / 2)
      return {scope + 2, open + 1};
  }
  return {0, char_start(text, width / 3)};
}

// `text` reduced to its spans, with an ellipsis wherever something was left out.
std::string join(std::string_view text, const std::vector<Span>& spans) {
  std::string out;
  std::size_t at = 0;
  for (const Span& span : spans) {
    if (span.end <= at) continue;
    const std::size_t start = std::max(span.start, at);
    if (start > at) out += kEllipsis;
    out += text.substr(start, span.end - start);
    at = span.end;
  }
  if (at < text.size()) out += kEllipsis;
  return out;
}

// The display form of a compacted name wider than `width`: the function name,
// then, when `differs_at` is given, a window from just before that position
// (where the name differs from others that would look the same), then as much
// of the name's end as fits.
std::string elide(std::string_view text, std::size_t width, std::optional<std::size_t> differs_at) {
  const Span head = function_name(text, width);
  const std::size_t ellipses = (head.start > 0 ? 1 : 0) + (differs_at ? 2 : 1);
  const std::size_t used = columns(text.substr(head.start, head.end - head.start)) + ellipses;
  const std::size_t available = width > used ? width - used : 0;
  const std::size_t n = text.size();
  const std::size_t tail_length = differs_at ? std::min(kShortTail, available / 4) : available;
  std::size_t tail = char_start(text, n - std::min(n, tail_length));
  for (std::size_t i = tail; i < std::min(n, tail + kSnap); ++i)
    if (i > 0 && is_delimiter(text[i - 1])) {
      tail = i;
      break;
    }
  std::vector<Span> spans{{head.start, head.end}};
  if (differs_at) {
    const std::size_t start =
        char_start(text, window_start(text, *differs_at, std::min(head.end, *differs_at)));
    const std::size_t length = available - (n - tail);
    std::size_t end = std::min(start + length, tail);
    while (end > start && end < n && is_continuation(text[end])) --end;
    if (end > start) spans.push_back({start, end});
  }
  spans.push_back({tail, n});
  return join(text, spans);
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first -
                                  a.begin());
}

struct Entry {
  std::string name, compact, display;
  int level = 0;  // 0: function name and end; 1: with the differing window; 2: the whole name
};

std::string display(const Entry& entry, std::size_t width, std::size_t differs_at) {
  if (columns(entry.name) <= width || entry.level >= 2) return entry.name;
  if (columns(entry.compact) <= width) return entry.level == 0 ? entry.compact : entry.name;
  if (entry.level == 0) return elide(entry.compact, width, std::nullopt);
  if (differs_at >= entry.compact.size()) return entry.name;
  return elide(entry.compact, width, differs_at);
}

}  // namespace

std::vector<std::string> shorten_names(const std::vector<std::string>& names, std::size_t width) {
  width = std::max(width, kMinWidth);
  std::map<std::string, Entry> entries;  // distinct names
  for (const std::string& name : names)
    if (!entries.contains(name)) {
      Entry entry{name, compact(name), "", 0};
      entry.display = display(entry, width, 0);
      entries.emplace(name, std::move(entry));
    }
  // Names that look the same show more of themselves until none do. Every
  // round raises a level, and at level 2 every name is whole: distinct names
  // are then distinct, so this ends.
  for (bool clash = true; clash;) {
    clash = false;
    std::map<std::string, std::vector<Entry*>> by_display;
    for (auto& [name, entry] : entries) by_display[entry.display].push_back(&entry);
    for (auto& [shown, group] : by_display) {
      if (group.size() < 2) continue;
      std::size_t prefix = group.front()->compact.size();
      for (const Entry* other : group)
        prefix = std::min(prefix, common_prefix(group.front()->compact, other->compact));
      for (Entry* entry : group) {
        if (entry->level == 2) continue;
        ++entry->level;
        entry->display = display(*entry, width, prefix);
        clash = true;
      }
    }
  }
  std::vector<std::string> shown;
  shown.reserve(names.size());
  for (const std::string& name : names) shown.push_back(entries.at(name).display);
  return shown;
}

}  // namespace parity::analyzer
