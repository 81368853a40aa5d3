// Large AllReduces do not page their scratch memory in again on every call
// (scratch_allocation.hpp): on the communication thread of each step, MPI's
// per-call scratch buffer for a message over 32 MiB is reused, not mapped
// afresh. Fails with glibc's default allocation policy (on 2 ranks 8,200 page
// faults for every AllReduce of 64 MB: a scratch buffer of half the message).
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "mpi_world.hpp"

namespace {

long page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The page faults of one AllReduce of `values`, run on a thread of its own as
// the reducer's communication thread runs it.
long faults_of_allreduce(std::vector<float>& values) {
  long faults = 0;
  std::thread thread([&] {
    const long before = page_faults();
    mpi_world().allreduce_mean(values);
    faults = page_faults() - before;
  });
  thread.join();
  return faults;
}

}  // namespace

TEST_CASE("a 64 MB AllReduce reuses its scratch memory on the next call", "[e2e]") {
  std::vector<float> values(16 << 20, 1.0f);  // 64 MiB, touched already
  faults_of_allreduce(values);                // pages MPI's scratch buffer in once
  const long pages = static_cast<long>(values.size() * sizeof(float) / 4096);
  for (int call = 0; call < 3; ++call) {
    const long faults = faults_of_allreduce(values);
    INFO("call " << call << ": " << faults << " page faults, the message is " << pages << " pages");
    CHECK(faults < pages / 10);
  }
  CHECK(values.front() == 1.0f);  // the mean of ones
}
