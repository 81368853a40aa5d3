// What a run was made with, as its producer recorded it in a dump's header
// (docs/formats/dump.md): hyper-parameters, library versions and the
// environment variables that change what a run computes or how. `parity
// compare` lists where two runs' settings differ (msprobe's config_check).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace parity::importers {

struct RunSettings {
  // Under names both our producers use (model, batch, lr, momentum, ...).
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> versions;     // library -> version
  std::map<std::string, std::string> environment;  // variable -> value
  bool empty() const { return config.empty() && versions.empty() && environment.empty(); }
};

// Whether a producer records this environment variable: the ones read by
// the threading, math, GPU and collective libraries and the frameworks
// (OMP_*, MKL_*, DNNL_*, CUDA_*, NCCL_*, TORCH_*, MS_*, ...; the list is in
// docs/formats/dump.md, and samples/torch/dump_reference.py keeps the same).
bool is_recorded_variable(std::string_view name);

// This process's recorded variables.
std::map<std::string, std::string> recorded_environment();

}  // namespace parity::importers
