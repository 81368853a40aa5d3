// Decodes CUPTI activity records (the struct versions of the CUDA 13
// headers this is built with) into Parity's CUPTI-free records.
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parity/profiler/gpu_activity_record.hpp"

namespace parity::profiler::cupti {

struct DecodedRecords {
  std::vector<DeviceActivityRecord> device;  // kernel names point into CUPTI's memory
  std::vector<ApiActivityRecord> api;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> contexts;  // (context, device)
  std::uint64_t other = 0;  // records of kinds Parity does not store

  void clear();
};

void decode_record(const CUpti_Activity& record, DecodedRecords& out);

// An API function's name without CUPTI's version suffix:
// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string without_version_suffix(std::string_view name);

}  // namespace parity::profiler::cupti
