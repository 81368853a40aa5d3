// Collectives in PyTorch profiler traces: the names of the process group's
// ranges and of NCCL's kernels (both of its naming schemes), element sizes of
// PyTorch's type names, and the choice of NCCL kernels over the host ranges
// that enqueue them.
#include "chrome/chrome_collectives.hpp"

#include <catch2/catch.hpp>

using namespace parity::importers::trace;
using parity::profiler::CollectiveOp;

namespace {

ChromeEvent named(std::string_view category, std::string_view name) {
  ChromeEvent event;
  event.phase = 'X';
  event.category = category;
  event.name = name;
  return event;
}

}  // namespace

TEST_CASE("collective names of c10d, gloo, nccl and NCCL's kernels give their operation",
          "[unit]") {
  CHECK(collective_op_of("all_reduce") == CollectiveOp::kAllReduce);
  CHECK(collective_op_of("allreduce_") == CollectiveOp::kAllReduce);
  CHECK(collective_op_of("AllReduce") == CollectiveOp::kAllReduce);
  CHECK(collective_op_of("_allgather_base") == CollectiveOp::kAllGather);
  CHECK(collective_op_of("ReduceScatter") == CollectiveOp::kReduceScatter);
  CHECK(collective_op_of("broadcast") == CollectiveOp::kBroadcast);
  CHECK(collective_op_of("SendRecv") == std::nullopt);
  CHECK(collective_op_of("linear") == std::nullopt);
}

TEST_CASE("element sizes of PyTorch's type names", "[unit]") {
  CHECK(element_bytes("float") == 4);
  CHECK(element_bytes("c10::Half") == 2);
  CHECK(element_bytes("c10::BFloat16") == 2);
  CHECK(element_bytes("long int") == 8);
  CHECK(element_bytes("double") == 8);
  CHECK(element_bytes("unsigned char") == 1);
  CHECK(element_bytes("") == 0);
}

TEST_CASE("host collective ranges are the collectives, sized by their first input", "[unit]") {
  ChromeCollectives collectives;
  ChromeEvent gloo = named("user_annotation", "gloo:all_reduce");
  gloo.input_elements = 1000;
  gloo.input_type = "float";
  CHECK(collectives.consider(gloo, 100, 50));
  CHECK_FALSE(collectives.consider(named("cpu_op", "aten::linear"), 0, 1));
  CHECK_FALSE(
      collectives.consider(named("cpu_op", "c10d::allreduce_"), 0, 1));  // the call, not the run
  CHECK_FALSE(collectives.sizes_missing());
  CHECK_FALSE(collectives.consider(named("user_annotation", "mine:all_reduce"), 0, 1));
  CHECK(collectives.consider(named("user_annotation", "nccl:broadcast"), 200, 10));
  CHECK(collectives.sizes_missing());  // the broadcast's shape was not recorded
}

TEST_CASE("NCCL kernels, in either naming, are taken over the host ranges", "[unit]") {
  ChromeCollectives collectives;
  CHECK(collectives.consider(named("user_annotation", "nccl:all_reduce"), 100, 5));
  ChromeEvent old_name = named("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)");
  ChromeEvent new_name = named("kernel", "ncclDevKernel_AllGather_RING_LL");
  CHECK(collectives.consider(old_name, 110, 40));
  CHECK(collectives.consider(new_name, 160, 20));
  CHECK_FALSE(collectives.consider(named("kernel", "ncclDevKernel_Generic"), 0, 1));
  CHECK_FALSE(collectives.consider(named("kernel", "void gemm()"), 0, 1));

  TraceAssembly assembly;
  collectives.add_to(assembly, 3);
  // Two device collectives (the host range only enqueued the first one); the
  // assembly holds them until write(), so the test reads the earliest time.
  CHECK(assembly.earliest_ns() == 110);
}
