// Where two runs' recorded settings differ (importers/dump/run_settings.hpp):
// a hyper-parameter, a library version or an environment variable with
// another value on each side, or recorded by one side only. Shown beside a
// comparison, never a failure: a port is expected to differ in its versions,
// and a differing learning rate is a lead to follow, not a verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parity/importers/dump/run_settings.hpp"

namespace parity::analyzer {

struct SettingDifference {
  std::string section;  // config, versions, environment
  std::string name;
  std::optional<std::string> a, b;  // absent where that side did not record it
};

// In section order (config, versions, environment), then by name.
std::vector<SettingDifference> diff_settings(const importers::RunSettings& a,
                                             const importers::RunSettings& b);

}  // namespace parity::analyzer
