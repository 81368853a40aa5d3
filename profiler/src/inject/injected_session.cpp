#include "injected_session.hpp"

#include <cuda.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <vector>

#include "cupti_check.hpp"
#include "nvtx_message.hpp"
#include "parity/core/error.hpp"
#include "parity/core/log.hpp"

namespace parity::profiler::inject {

namespace {

void CUPTIAPI forward_callback(void* session, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                               const void* data) {
  static_cast<InjectedSession*>(session)->on_callback(domain, id, data);
}

// One NVTX push of the calling thread: the ring its end goes to (none when
// it was not recorded), whether it is a step and whether it opened the
// capture window.
struct NvtxFrame {
  ThreadBuffer* ring = nullptr;
  bool step = false;
  bool opened_window = false;
};
thread_local std::vector<NvtxFrame> nvtx_stack;

// Waits for the calling thread's CUDA context, if it has one. The driver is
// looked up in the process (the program loaded it) rather than linked, so
// that binaries holding the session start on machines without a driver.
void synchronize_current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  using Synchronize = CUresult (*)();
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!driver) return;
  const auto get_current = reinterpret_cast<GetCurrent>(dlsym(driver, "cuCtxGetCurrent"));
  const auto synchronize = reinterpret_cast<Synchronize>(dlsym(driver, "cuCtxSynchronize"));
  CUcontext context = nullptr;
  if (get_current && synchronize && get_current(&context) == CUDA_SUCCESS && context) {
    const CUresult result = synchronize();
    if (result != CUDA_SUCCESS)
      log::warning("parity record: cuCtxSynchronize at the end of a capture window failed (" +
                   std::to_string(result) + "): its last GPU records may be incomplete");
  }
  dlclose(driver);
}

RecorderOptions recorder_options(const RecordRequest& request) {
  const ProcessRank rank = rank_from_environment();
  RecorderOptions options;
  options.path = process_trace_path(request, rank, getpid());
  options.capture_at_start = request.capture == CaptureRange::kWhole;
  options.command_line = request.command_line;
  options.rank = rank.rank;
  options.world_size = rank.world_size;
  return options;
}

}  // namespace

InjectedSession::InjectedSession(const RecordRequest& request)
    : request_(request), recorder_(std::make_unique<Recorder>(recorder_options(request))) {
  recorder_->set_meta("record.capture_range", capture_range_name(request.capture));
  if (request.capture == CaptureRange::kNvtx)
    recorder_->set_meta("record.nvtx_range", request.nvtx_range);
  if (!request.step_range.empty()) recorder_->set_meta("record.step_range", request.step_range);
  recorder_->set_meta("record.pid", std::to_string(getpid()));
  try {
    collector_ = std::make_unique<CuptiCollector>(*recorder_);
    subscribe();
    if (request.capture == CaptureRange::kWhole) collector_->start();
    recorder_->set_meta("record.gpu", "recorded");
  } catch (const Error& error) {
    // No driver or no device: cuptiActivityEnable fails; say so in the trace.
    collector_.reset();
    const std::string why =
        std::string("not recorded: no CUDA device or driver usable, CUPTI could not start: ") +
        error.what();
    recorder_->set_meta("record.gpu", why);
    log::warning("parity record: " + why + "; the program runs unrecorded");
  }
}

void InjectedSession::subscribe() {
  PARITY_CUPTI_CHECK(cuptiSubscribe(&subscriber_, forward_callback, this));
  // NVTX reaches CUPTI only through NVTX_INJECTION64_PATH, which `parity
  // record` points at this library (InitializeInjectionNvtx2 forwards).
  PARITY_CUPTI_CHECK(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_NVTX));
  if (request_.capture == CaptureRange::kCudaProfilerApi) {
    // The runtime's calls and the driver's: a program may call either, and
    // the window opens and closes once whichever reports first.
    for (const CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop})
      PARITY_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id));
    for (const CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000})
      PARITY_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API, id));
  }
}

InjectedSession::~InjectedSession() {
  if (subscriber_) PARITY_CUPTI_LOG(cuptiUnsubscribe(subscriber_));
  collector_.reset();  // the last records, then the counts into the trace
  recorder_.reset();   // finalizes the database
}

void InjectedSession::on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  const void* data) {
  if (domain == CUPTI_CB_DOMAIN_NVTX)
    on_nvtx(id, *static_cast<const CUpti_NvtxData*>(data));
  else if (domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    on_profiler_api(domain, id, *static_cast<const CUpti_CallbackData*>(data));
}

void InjectedSession::on_profiler_api(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                      const CUpti_CallbackData& data) {
  if (data.callbackSite != CUPTI_API_ENTER) return;
  const bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
  const bool start = driver ? id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart
                            : id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000;
  // Starting twice, or stopping a closed window, changes nothing (as in CUDA).
  std::lock_guard lock(profiler_api_mutex_);
  if (start == profiler_window_open_) return;
  profiler_window_open_ = start;
  if (start)
    open_window();
  else
    close_window();
}

void InjectedSession::on_nvtx(CUpti_CallbackId id, const CUpti_NvtxData& data) {
  const void* params = data.functionParams;
  const auto registered = [this](const void* handle) { return registered_string(handle); };
  switch (id) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      push_range(static_cast<const nvtxRangePushA_params*>(params)->message);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      push_range(utf8_from_wide(static_cast<const nvtxRangePushW_params*>(params)->message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      push_range(nvtx_message(static_cast<const nvtxRangePushEx_params*>(params)->eventAttrib,
                              registered));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      push_range(nvtx_message(
          static_cast<const nvtxDomainRangePushEx_params*>(params)->core.eventAttrib, registered));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      pop_range();
      break;
    case CUPTI_CBID_NVTX_nvtxMarkA:
      recorder_->instant(intern(static_cast<const nvtxMarkA_params*>(params)->message),
                         Category::kUser);
      break;
    case CUPTI_CBID_NVTX_nvtxMarkEx:
      recorder_->instant(
          intern(nvtx_message(static_cast<const nvtxMarkEx_params*>(params)->eventAttrib,
                              registered)),
          Category::kUser);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
      const auto* handle = static_cast<const nvtxStringHandle_t*>(data.functionReturnValue);
      const char* text = static_cast<const nvtxDomainRegisterStringA_params*>(params)->string;
      if (handle && text) {
        std::lock_guard lock(strings_mutex_);
        registered_strings_[*handle] = text;
      }
      break;
    }
    default:
      break;  // start/end ranges, names of categories, threads, domains
  }
}

void InjectedSession::push_range(const std::string& name) {
  NvtxFrame frame;
  if (request_.capture == CaptureRange::kNvtx && name == request_.nvtx_range) {
    open_window();
    frame.opened_window = true;
  }
  if (!request_.step_range.empty() && name == request_.step_range) {
    // A step, numbered from 0 in the order they begin, as parity-train's.
    const std::int64_t step = next_step_.fetch_add(1);
    frame.ring = recorder_->begin_range(intern(name), Category::kStep, step);
    frame.step = frame.ring != nullptr;
    if (frame.step) recorder_->on_step_begin(step);
  } else {
    frame.ring = recorder_->begin_range(intern(name), Category::kUser);
  }
  nvtx_stack.push_back(frame);
}

void InjectedSession::pop_range() {
  // A pop of a push made before the session subscribed has no frame.
  if (nvtx_stack.empty()) return;
  const NvtxFrame frame = nvtx_stack.back();
  nvtx_stack.pop_back();
  if (frame.ring) Recorder::end_range(*frame.ring);
  if (frame.step) recorder_->request_flush();  // a step's rows commit at its end
  if (frame.opened_window) close_window();
}

void InjectedSession::open_window() {
  std::lock_guard lock(window_mutex_);
  if (open_windows_++ > 0) return;
  recorder_->start();
  if (collector_) collector_->start();
}

void InjectedSession::close_window() {
  std::lock_guard lock(window_mutex_);
  if (open_windows_ == 0 || --open_windows_ > 0) return;
  synchronize_current_context();
  if (collector_) collector_->stop();
  recorder_->stop();
}

std::string InjectedSession::registered_string(const void* handle) {
  std::lock_guard lock(strings_mutex_);
  const auto found = registered_strings_.find(handle);
  return found == registered_strings_.end() ? "(unregistered string)" : found->second;
}

}  // namespace parity::profiler::inject
