// Decoding of real CUPTI record structs (CUDA 13 versions), built in memory
// with chosen values: runs without a GPU.
#include "cupti_decode.hpp"

#include <catch2/catch.hpp>
#include <cstring>

using namespace parity::profiler;
using parity::profiler::cupti::DecodedRecords;

namespace {

template <typename Record>
Record zeroed(CUpti_ActivityKind kind) {
  Record record;
  std::memset(&record, 0, sizeof record);
  record.kind = kind;
  return record;
}

template <typename Record>
void decode(const Record& record, DecodedRecords& out) {
  cupti::decode_record(reinterpret_cast<const CUpti_Activity&>(record), out);
}

}  // namespace

TEST_CASE("CUPTI kernel records decode with launch configuration and graph id", "[unit]") {
  auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.start = 1'000;
  k.end = 3'500;
  k.deviceId = 1;
  k.contextId = 4;
  k.streamId = 13;
  k.correlationId = 77;
  k.gridX = 64;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  k.registersPerThread = 40;
  k.graphId = 5;
  k.name = "_Z5scalePfif";
  DecodedRecords out;
  decode(k, out);
  REQUIRE(out.device.size() == 1);
  const DeviceActivityRecord& record = out.device[0];
  CHECK(record.kind == GpuActivityKind::kKernel);
  CHECK(record.start_ns == 1'000);
  CHECK(record.end_ns == 3'500);
  CHECK(record.device == 1);
  CHECK(record.context == 4);
  CHECK(record.stream == 13);
  CHECK(record.correlation_id == 77);
  CHECK(record.name == "_Z5scalePfif");
  REQUIRE(record.launch.has_value());
  CHECK(record.launch->grid == std::array<std::uint32_t, 3>{64, 2, 1});
  CHECK(record.launch->block == std::array<std::uint32_t, 3>{256, 1, 1});
  CHECK(record.launch->shared_bytes == 3072);
  CHECK(record.launch->registers == 40);
  CHECK(record.graph_id == 5);
}

TEST_CASE("CUPTI memcpy, memset, sync, API and context records decode", "[unit]") {
  DecodedRecords out;
  auto copy = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  copy.bytes = 1 << 20;
  copy.start = 10;
  copy.end = 20;
  copy.streamId = 3;
  copy.correlationId = 8;
  decode(copy, out);
  auto fill = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  fill.bytes = 4096;
  fill.start = 30;
  fill.end = 31;
  fill.correlationId = 9;
  decode(fill, out);
  auto wait = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  wait.start = 40;
  wait.end = 90;
  wait.contextId = 4;
  wait.streamId = CUPTI_INVALID_STREAM_ID;
  decode(wait, out);
  auto call = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  call.cbid = 211;
  call.start = 5;
  call.end = 9;
  call.threadId = 0x91748700u;
  call.correlationId = 8;
  decode(call, out);
  call.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  decode(call, out);
  auto context = zeroed<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
  context.contextId = 4;
  context.deviceId = 2;
  decode(context, out);
  const auto other = zeroed<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
  decode(other, out);

  REQUIRE(out.device.size() == 3);
  CHECK(out.device[0].kind == GpuActivityKind::kMemcpy);
  CHECK(out.device[0].copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
  CHECK(out.device[0].bytes == 1 << 20);
  CHECK(out.device[0].stream == 3);
  CHECK(out.device[1].kind == GpuActivityKind::kMemset);
  CHECK(out.device[1].bytes == 4096);
  CHECK(out.device[2].kind == GpuActivityKind::kSync);
  CHECK(out.device[2].sync == SyncKind::kContext);
  CHECK(out.device[2].stream == kNoStream);
  CHECK(out.device[2].context == 4);
  REQUIRE(out.api.size() == 2);
  CHECK(out.api[0].kind == ApiKind::kRuntime);
  CHECK(out.api[1].kind == ApiKind::kDriver);
  CHECK(out.api[0].callback_id == 211);
  CHECK(out.api[0].thread_id == 0x91748700u);
  CHECK(out.api[0].correlation_id == 8);
  REQUIRE(out.contexts.size() == 1);
  CHECK(out.contexts[0] == std::pair<std::uint32_t, std::uint32_t>{4, 2});
  CHECK(out.other == 1);
}

TEST_CASE("API names lose CUPTI's version suffix only", "[unit]") {
  CHECK(cupti::without_version_suffix("cudaLaunchKernel_v7000") == "cudaLaunchKernel");
  CHECK(cupti::without_version_suffix("cuLaunchKernel") == "cuLaunchKernel");
  CHECK(cupti::without_version_suffix("cudaGraphLaunch_v10000") == "cudaGraphLaunch");
  CHECK(cupti::without_version_suffix("cuMemcpy_v2") == "cuMemcpy");
  CHECK(cupti::without_version_suffix("odd_vname") == "odd_vname");
  CHECK(cupti::without_version_suffix("trailing_v") == "trailing_v");
}
