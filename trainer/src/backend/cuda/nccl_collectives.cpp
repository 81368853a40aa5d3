#include "parity/trainer/dist/nccl_collectives.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_context.hpp"
#include "device_buffer.hpp"
#include "device_clock.hpp"
#include "event_pool.hpp"
#include "parity/core/error.hpp"

namespace parity::trainer {

bool nccl_available() { return true; }

namespace {

void check_nccl(ncclResult_t result, const char* call, ncclComm_t comm = nullptr) {
  if (result == ncclSuccess) return;
  std::string text = std::string(call) + " failed: " + ncclGetErrorString(result);
  if (const char* last = comm ? ncclGetLastError(comm) : nullptr; last && *last)
    text += std::string(" (") + last + ")";
  throw Error(text, "NCCL",
              "check that every rank runs the same command with a GPU of its own (one rank per "
              "GPU); NCCL_DEBUG=WARN tells more");
}

std::string nccl_version() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "NCCL";
  // 2.9 and later: major * 10000 + minor * 100 + patch.
  return "NCCL " + std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

// Rank 0's unique id, on every rank. Its bytes travel as floats: MPI moves
// them bit for bit, and no arithmetic touches them.
ncclUniqueId shared_unique_id(Communicator& bootstrap) {
  static_assert(sizeof(ncclUniqueId) % sizeof(float) == 0);
  ncclUniqueId id{};
  if (bootstrap.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  std::vector<float> words(sizeof id / sizeof(float));
  std::memcpy(words.data(), &id, sizeof id);
  bootstrap.broadcast(words, 0);
  std::memcpy(&id, words.data(), sizeof id);
  return id;
}

class NcclCollectives final : public DeviceCollectives {
 public:
  NcclCollectives(Communicator& bootstrap, int device, bool timed)
      : device_(device),
        ranks_(bootstrap.size()),
        timed_(timed),
        compute_(cuda::compute_stream(device)),
        marks_(timed),
        starts_(timed),
        ends_(timed) {
    PARITY_CUDA_CHECK(cudaSetDevice(device));
    // The highest priority: a ready AllReduce's kernels go before backward's.
    int least = 0, greatest = 0;
    PARITY_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    PARITY_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
    PARITY_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    const ncclUniqueId id = shared_unique_id(bootstrap);
    check_nccl(ncclCommInitRank(&comm_, ranks_, id, bootstrap.rank()), "ncclCommInitRank");
    if (timed_) clock_.emplace(device);
  }

  ~NcclCollectives() override {
    // Collectives still queued (an exception left the step half done) may
    // wait forever for a rank that is gone: abort them rather than wait.
    if (comm_ && cudaStreamQuery(stream_) != cudaSuccess) {
      (void)ncclCommAbort(comm_);
      comm_ = nullptr;
    }
    (void)cudaStreamSynchronize(stream_);
    if (comm_) (void)ncclCommDestroy(comm_);
    (void)cudaEventDestroy(done_);
    (void)cudaStreamDestroy(stream_);
  }

  std::string describe() const override {
    return nccl_version() + ", " + std::to_string(ranks_) + " ranks, GPU " +
           std::to_string(device_);
  }

  std::uint32_t mark_compute() override {
    PARITY_CUDA_CHECK(cudaEventRecord(marks_.at(marks_made_), compute_));
    return marks_made_++;
  }

  void queue_allreduce_mean(std::span<float> values, std::uint32_t after) override {
    if (after >= marks_made_)
      throw Error("AllReduce queued after mark " + std::to_string(after) + " of " +
                      std::to_string(marks_made_),
                  "NCCL collectives", "mark the compute stream first");
    PARITY_CUDA_CHECK(cudaStreamWaitEvent(stream_, marks_.at(after), 0));
    if (timed_) PARITY_CUDA_CHECK(cudaEventRecord(starts_.at(queued_), stream_));
    check_nccl(ncclAllReduce(values.data(), values.data(), values.size(), ncclFloat32, ncclAvg,
                             comm_, stream_),
               "ncclAllReduce", comm_);
    if (timed_) PARITY_CUDA_CHECK(cudaEventRecord(ends_.at(queued_), stream_));
    ++queued_;
  }

  void wait_compute() override { PARITY_CUDA_CHECK(cudaStreamSynchronize(compute_)); }

  void wait_collectives() override {
    PARITY_CUDA_CHECK(cudaEventRecord(done_, stream_));
    // Polled rather than synchronized on: a rank whose peer failed would
    // otherwise wait forever inside NCCL. NCCL reports that as an async error.
    cudaError_t state = cudaErrorNotReady;
    while ((state = cudaEventQuery(done_)) == cudaErrorNotReady) {
      ncclResult_t async = ncclSuccess;
      check_nccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError", comm_);
      if (async != ncclSuccess && async != ncclInProgress) {
        (void)ncclCommAbort(comm_);
        comm_ = nullptr;
        check_nccl(async, "an NCCL collective");
      }
      std::this_thread::yield();
    }
    PARITY_CUDA_CHECK(state);
    PARITY_CUDA_CHECK(cudaStreamWaitEvent(compute_, done_, 0));
  }

  DeviceStepTimes end_step() override {
    DeviceStepTimes times;
    if (timed_) {
      // Marks are in stream order: the last one done, all are.
      if (marks_made_ > 0) PARITY_CUDA_CHECK(cudaEventSynchronize(marks_.at(marks_made_ - 1)));
      for (std::uint32_t i = 0; i < marks_made_; ++i)
        times.marks_ns.push_back(clock_->monotonic_ns(marks_.at(i)));
      for (std::uint32_t i = 0; i < queued_; ++i)
        times.collectives.push_back(
            {clock_->monotonic_ns(starts_.at(i)), clock_->monotonic_ns(ends_.at(i))});
      clock_->anchor();
    }
    marks_made_ = queued_ = 0;
    return times;
  }

  std::span<float> scratch(std::size_t count) override {
    scratch_ = cuda::DeviceBuffer();
    scratch_ = cuda::DeviceBuffer(count * sizeof(float), compute_);
    PARITY_CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), compute_));
    return {scratch_.as<float>(), count};
  }

 private:
  int device_;
  int ranks_;
  bool timed_;
  cudaStream_t compute_;
  cudaStream_t stream_ = nullptr;  // the communication stream
  cudaEvent_t done_ = nullptr;     // the end of the last queued collective
  ncclComm_t comm_ = nullptr;
  cuda::EventPool marks_, starts_, ends_;
  std::optional<cuda::DeviceClock> clock_;
  std::uint32_t marks_made_ = 0, queued_ = 0;  // this step
  cuda::DeviceBuffer scratch_;
};

}  // namespace

std::unique_ptr<DeviceCollectives> make_nccl_collectives(Communicator& bootstrap, int device,
                                                         bool timed) {
  return std::make_unique<NcclCollectives>(bootstrap, device, timed);
}

}  // namespace parity::trainer
