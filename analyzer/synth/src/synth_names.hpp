// The string table of a synthetic trace: every name interned once, written to
// each database before its rows.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parity/profiler/trace_rows.hpp"

namespace parity::analyzer::synth {

class Names {
 public:
  Names() { intern(""); }  // id 0 is the empty string

  profiler::NameId intern(std::string_view text) {
    const auto [it, inserted] =
        ids_.emplace(std::string(text), static_cast<profiler::NameId>(texts_.size()));
    if (inserted) texts_.emplace_back(text);
    return it->second;
  }
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  std::vector<std::string> texts_;
  std::unordered_map<std::string, profiler::NameId> ids_;
};

}  // namespace parity::analyzer::synth
