// The process-wide string table behind parity::profiler::intern(). Id 0 is the
// empty string. Each recorder writes the strings it has not written yet.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parity/profiler/trace_rows.hpp"

namespace parity::profiler {

class StringTable {
 public:
  static StringTable& instance();

  NameId intern(std::string_view text);
  std::size_t size() const;
  // Copies the strings with ids in [first, size()) into `out`; returns size().
  std::size_t copy_from(std::size_t first, std::vector<std::string>& out) const;

 private:
  StringTable();
  mutable std::mutex mutex_;
  std::deque<std::string> strings_;  // deque: views into it stay valid as it grows
  std::unordered_map<std::string_view, NameId> ids_;
};

}  // namespace parity::profiler
