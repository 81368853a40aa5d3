#include "parity/profiler/cupti_collector.hpp"

#include <cupti.h>

#include <atomic>
#include <string>

#include "cupti_check.hpp"
#include "cupti_decode.hpp"
#include "parity/core/error.hpp"
#include "parity/core/log.hpp"

namespace parity::profiler {

struct CuptiCollector::State {
  State(Recorder& recorder, const ActivityBufferPoolOptions& buffers);
  ActivityBufferPool pool;
  GpuTraceAssembler assembler;
};

namespace {

// CUPTI's callbacks carry no user pointer: the one active collector's state.
std::atomic<CuptiCollector::State*> active_state{nullptr};

std::string api_name(ApiKind kind, std::uint32_t callback_id) {
  const CUpti_CallbackDomain domain =
      kind == ApiKind::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, callback_id, &name) == CUPTI_SUCCESS && name)
    return cupti::without_version_suffix(name);
  return std::string(api_kind_name(kind)) + " API call " + std::to_string(callback_id);
}

// The records are read as the structs of the CUPTI we were compiled against
// (cupti_decode.cpp); another CUPTI may deliver other versions of them.
void note_cupti_version(Recorder& recorder) {
  std::uint32_t loaded = 0;
  if (cuptiGetVersion(&loaded) != CUPTI_SUCCESS) return;
  recorder.set_meta("gpu.cupti_api_version", std::to_string(loaded));
  if (loaded != CUPTI_API_VERSION)
    log::warning("CUPTI API version " + std::to_string(loaded) + " is loaded, but Parity was " +
                 "built against " + std::to_string(CUPTI_API_VERSION) +
                 ": check the trace's GPU rows, or run with the CUPTI of the CUDA toolkit it was "
                 "built with");
}

std::uint64_t CUPTIAPI monotonic_timestamp() { return static_cast<std::uint64_t>(monotonic_ns()); }

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *max_records = 0;  // as many as fit
  CuptiCollector::State* state = active_state.load();
  const std::span<std::uint8_t> granted = state ? state->pool.acquire() : std::span<std::uint8_t>{};
  *buffer = granted.data();  // none: CUPTI drops records and counts them
  *size = granted.size();
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid_bytes) {
  CuptiCollector::State* state = active_state.load();
  if (!state || !buffer) return;
  thread_local cupti::DecodedRecords decoded;
  decoded.clear();
  CUpti_Activity* record = nullptr;
  for (;;) {
    const CUptiResult result = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
    // The end of the buffer; INVALID_KIND: an incomplete record, which ends it too.
    if (result == CUPTI_ERROR_MAX_LIMIT_REACHED || result == CUPTI_ERROR_INVALID_KIND) break;
    if (result != CUPTI_SUCCESS) {
      cupti::log_failure(result, "cuptiActivityGetNextRecord", __FILE__, __LINE__);
      break;
    }
    cupti::decode_record(*record, decoded);
  }
  for (const auto& [context_id, device] : decoded.contexts)
    state->assembler.learn_context(context_id, device);
  state->assembler.add(decoded.device);  // before the buffer (and kernel names) go back
  state->assembler.add(decoded.api);
  std::size_t dropped = 0;
  PARITY_CUPTI_LOG(cuptiActivityGetNumDroppedRecords(context, stream, &dropped));
  if (dropped > 0) state->assembler.count_dropped(dropped);
  state->pool.release(buffer, valid_bytes, monotonic_ns());
}

}  // namespace

CuptiCollector::State::State(Recorder& recorder, const ActivityBufferPoolOptions& buffers)
    : pool(buffers), assembler(recorder, api_name) {}

CuptiCollector::CuptiCollector(Recorder& recorder, CuptiCollectorOptions options)
    : state_(std::make_unique<State>(recorder, options.buffers)), options_(options) {
  State* expected = nullptr;
  if (!active_state.compare_exchange_strong(expected, state_.get()))
    throw Error("a CUPTI collector is already recording in this process", "CUPTI",
                "stop the other collector first; CUPTI's activity API has one client");
  try {
    PARITY_CUPTI_CHECK(cuptiActivityRegisterTimestampCallback(monotonic_timestamp));
    PARITY_CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    // The pool hands out zeroed buffers, so CUPTI need not zero them on the
    // thread that asks for one (the training thread).
    std::uint8_t zeroed = 1;
    std::size_t zeroed_size = sizeof zeroed;
    PARITY_CUPTI_CHECK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER,
                                                 &zeroed_size, &zeroed));
  } catch (...) {
    active_state.store(nullptr);
    throw;
  }
  recorder.set_meta("gpu.clock", "CLOCK_MONOTONIC (CUPTI timestamp callback)");
  if (options.api_calls && !options.query_calls) {
    std::string left_out;
    for (const std::string& name : query_api_calls())
      left_out += (left_out.empty() ? "" : ", ") + name;
    recorder.set_meta("gpu.api_calls_left_out", left_out);
  }
  note_cupti_version(recorder);
}

namespace {

std::vector<CUpti_ActivityKind> kinds_of(const CuptiCollectorOptions& options) {
  std::vector<CUpti_ActivityKind> kinds{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                        CUPTI_ACTIVITY_KIND_CONTEXT};
  if (options.api_calls) {
    kinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  }
  if (options.memory) {
    kinds.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
    kinds.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  }
  if (options.synchronization) kinds.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  return kinds;
}

// Calls that read state and start no GPU work. cuDNN and cuBLAS make them
// by the thousand each step (measured on an H200: 93k of 147k calls in 30
// ResNet-50 steps), and each record costs the calling thread time.
constexpr CUpti_CallbackId kRuntimeQueries[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
};
constexpr CUpti_CallbackId kDriverQueries[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,      CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetId,           CUPTI_DRIVER_TRACE_CBID_cuCtxGetLimit,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,          CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion,   CUPTI_DRIVER_TRACE_CBID_cuGetErrorName,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorString,     CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,  CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,      CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute, CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing,
};

// Called after the RUNTIME and DRIVER kinds are enabled, which would
// otherwise switch every call back on.
void leave_out_query_calls() {
  for (const CUpti_CallbackId id : kRuntimeQueries)
    PARITY_CUPTI_LOG(cuptiActivityEnableRuntimeApi(id, 0));
  for (const CUpti_CallbackId id : kDriverQueries)
    PARITY_CUPTI_LOG(cuptiActivityEnableDriverApi(id, 0));
}

}  // namespace

std::vector<std::string> query_api_calls() {
  std::vector<std::string> names;
  for (const CUpti_CallbackId id : kRuntimeQueries) names.push_back(api_name(ApiKind::kRuntime, id));
  for (const CUpti_CallbackId id : kDriverQueries) names.push_back(api_name(ApiKind::kDriver, id));
  return names;
}

void CuptiCollector::start() {
  if (running_) return;
  const auto kinds = kinds_of(options_);
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    // The context existed before the collector: only a dump delivers its
    // record (which device it is on). Where there is none yet to dump (an
    // injected collector starts inside cuInit), plain enabling will do.
    CUptiResult result = kinds[i] == CUPTI_ACTIVITY_KIND_CONTEXT
                             ? cuptiActivityEnableAndDump(kinds[i])
                             : cuptiActivityEnable(kinds[i]);
    if (result != CUPTI_SUCCESS && kinds[i] == CUPTI_ACTIVITY_KIND_CONTEXT)
      result = cuptiActivityEnable(kinds[i]);
    if (result == CUPTI_SUCCESS) continue;
    for (std::size_t j = 0; j < i; ++j) PARITY_CUPTI_LOG(cuptiActivityDisable(kinds[j]));
    cupti::throw_failure(result, "cuptiActivityEnable", __FILE__, __LINE__);
  }
  if (options_.api_calls && !options_.query_calls) leave_out_query_calls();
  running_ = true;
}

// Disabling first, then a forced flush: no record is made after the flush,
// and the flush delivers every buffer, partly filled ones too.
void CuptiCollector::stop() {
  if (!running_) return;
  for (const CUpti_ActivityKind kind : kinds_of(options_))
    PARITY_CUPTI_LOG(cuptiActivityDisable(kind));
  PARITY_CUPTI_LOG(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  running_ = false;
}

CuptiCollector::~CuptiCollector() {
  stop();
  // Detached first: no callback adds rows once the counts are written.
  active_state.store(nullptr);
  state_->assembler.finish();
  // A buffer CUPTI still holds (requested, never filled) must stay valid for
  // as long as CUPTI might write to it: then the pool outlives the collector.
  if (const auto in_use = state_->pool.stats(); in_use.buffers > in_use.free) {
    log::warning("CUPTI kept " + std::to_string(in_use.buffers - in_use.free) +
                 " activity buffers after the final flush; they stay allocated");
    static_cast<void>(state_.release());
  }
}

GpuTraceCounts CuptiCollector::counts() const { return state_->assembler.counts(); }

ActivityBufferPoolStats CuptiCollector::buffer_stats() const { return state_->pool.stats(); }

}  // namespace parity::profiler
