#include "parity/importers/dump/run_settings.hpp"

#include <unistd.h>

#include <array>

namespace parity::importers {

bool is_recorded_variable(std::string_view name) {
  static constexpr std::array<std::string_view, 19> kPrefixes = {
      "OMP_",  "KMP_",   "GOMP_",   "MKL_",     "OPENBLAS_",  "DNNL_", "ONEDNN_",
      "CUDA_", "CUBLAS_", "CUDNN_", "NCCL_",    "NVIDIA_",    "TORCH_", "PYTORCH_",
      "MS_",   "MINDSPORE_", "GLOG_", "ASCEND_", "HCCL_"};
  static constexpr std::array<std::string_view, 2> kNames = {"PYTHONHASHSEED", "LD_PRELOAD"};
  for (std::string_view prefix : kPrefixes)
    if (name.starts_with(prefix)) return true;
  for (std::string_view exact : kNames)
    if (name == exact) return true;
  return false;
}

std::map<std::string, std::string> recorded_environment() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = text.substr(0, equals);
    if (is_recorded_variable(name)) variables.emplace(name, text.substr(equals + 1));
  }
  return variables;
}

}  // namespace parity::importers
