#include "parity/analyzer/compare/settings_diff.hpp"

#include <map>
#include <utility>

namespace parity::analyzer {
namespace {

using Section = std::map<std::string, std::string>;

std::optional<std::string> value_of(const Section& section, const std::string& name) {
  const auto it = section.find(name);
  if (it == section.end()) return std::nullopt;
  return it->second;
}

void diff_section(const char* title, const Section& a, const Section& b,
                  std::vector<SettingDifference>& out) {
  std::map<std::string, bool> names;  // both sections' names, in order
  for (const auto& [name, value] : a) names[name] = true;
  for (const auto& [name, value] : b) names[name] = true;
  for (const auto& [name, unused] : names) {
    std::optional<std::string> in_a = value_of(a, name), in_b = value_of(b, name);
    if (in_a != in_b) out.push_back({title, name, std::move(in_a), std::move(in_b)});
  }
}

}  // namespace

std::vector<SettingDifference> diff_settings(const importers::RunSettings& a,
                                             const importers::RunSettings& b) {
  std::vector<SettingDifference> differences;
  diff_section("config", a.config, b.config, differences);
  diff_section("versions", a.versions, b.versions, differences);
  diff_section("environment", a.environment, b.environment, differences);
  return differences;
}

}  // namespace parity::analyzer
