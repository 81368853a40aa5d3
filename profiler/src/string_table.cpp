#include "string_table.hpp"

#include "parity/profiler/recorder.hpp"

namespace parity::profiler {

StringTable& StringTable::instance() {
  static StringTable table;
  return table;
}

StringTable::StringTable() { intern(""); }

NameId StringTable::intern(std::string_view text) {
  std::lock_guard lock(mutex_);
  if (const auto it = ids_.find(text); it != ids_.end()) return it->second;
  const auto id = static_cast<NameId>(strings_.size());
  strings_.emplace_back(text);
  ids_.emplace(strings_.back(), id);
  return id;
}

std::size_t StringTable::size() const {
  std::lock_guard lock(mutex_);
  return strings_.size();
}

std::size_t StringTable::copy_from(std::size_t first, std::vector<std::string>& out) const {
  std::lock_guard lock(mutex_);
  for (std::size_t i = first; i < strings_.size(); ++i) out.push_back(strings_[i]);
  return strings_.size();
}

NameId intern(std::string_view text) { return StringTable::instance().intern(text); }

}  // namespace parity::profiler
