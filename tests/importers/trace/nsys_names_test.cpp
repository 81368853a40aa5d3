// The names the Nsight Systems importer reads meaning into: NVTX ranges that
// are steps, CUDA API names with nsys's version suffix, NCCL's kernels.
#include <catch2/catch.hpp>

#include "chrome/chrome_collectives.hpp"
#include "nsys/nsys_host_calls.hpp"
#include "nsys/nsys_step_name.hpp"

using parity::importers::trace::nccl_kernel_op;
using parity::importers::trace::nvtx_step_number;
using parity::importers::trace::without_api_version;
using parity::profiler::CollectiveOp;

TEST_CASE("NVTX ranges named like steps give their number", "[unit]") {
  CHECK(nvtx_step_number("ProfilerStep#3") == 3);
  CHECK(nvtx_step_number("step 3") == 3);
  CHECK(nvtx_step_number("Step_12") == 12);
  CHECK(nvtx_step_number("iteration 7") == 7);
  CHECK(nvtx_step_number("iter:4") == 4);
  CHECK(nvtx_step_number("train_step 5") == 5);
  CHECK(nvtx_step_number("Training_Step#0") == 0);
  CHECK_FALSE(nvtx_step_number("step"));
  CHECK_FALSE(nvtx_step_number("step 3 forward"));
  CHECK_FALSE(nvtx_step_number("forward step 3"));
  CHECK_FALSE(nvtx_step_number("steps 3"));
  CHECK_FALSE(nvtx_step_number("step -1"));
  CHECK_FALSE(nvtx_step_number("iterations 2"));
}

TEST_CASE("CUDA API names lose nsys's version suffix only", "[unit]") {
  CHECK(without_api_version("cudaLaunchKernel_v7000") == "cudaLaunchKernel");
  CHECK(without_api_version("cudaMemcpyAsync_v3020") == "cudaMemcpyAsync");
  CHECK(without_api_version("cuMemsetD8Async") == "cuMemsetD8Async");
  CHECK(without_api_version("cuLaunchKernel_v") == "cuLaunchKernel_v");
  CHECK(without_api_version("my_v2x") == "my_v2x");
}

TEST_CASE("NCCL kernels name their collective in both namings", "[unit]") {
  CHECK(
      nccl_kernel_op("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
      CollectiveOp::kAllReduce);
  CHECK(nccl_kernel_op("ncclDevKernel_AllGather_RING_LL") == CollectiveOp::kAllGather);
  CHECK(nccl_kernel_op("ncclKernel_ReduceScatter_RING_LL_Sum_half") ==
        CollectiveOp::kReduceScatter);
  CHECK(nccl_kernel_op("ncclDevKernel_Broadcast_RING_LL") == CollectiveOp::kBroadcast);
  CHECK_FALSE(nccl_kernel_op("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"));
  CHECK_FALSE(nccl_kernel_op("ncclDevKernel_Generic"));
  CHECK_FALSE(nccl_kernel_op("void gemm_kernel<float>()"));
}
