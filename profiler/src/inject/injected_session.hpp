// The recording that the CUDA injection library runs inside a process that
// `parity record` launched: a Recorder and a CuptiCollector writing the
// process's own database, a CUPTI subscriber for the capture range
// (cudaProfilerStart/Stop, or an NVTX range of a given name), and NVTX push
// and pop ranges recorded as the trace's ranges (category user) on the
// calling thread's track.
#pragma once

#include <cupti.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "parity/profiler/cupti_collector.hpp"
#include "parity/profiler/record_request.hpp"
#include "parity/profiler/recorder.hpp"

namespace parity::profiler::inject {

class InjectedSession {
 public:
  // Creates the process's database. Where CUPTI cannot start (no driver, no
  // device, another profiler holding it) the trace says why in its meta
  // (record.gpu) and the program runs on unrecorded.
  explicit InjectedSession(const RecordRequest& request);
  // Unsubscribes, delivers the last records and finalizes the database.
  ~InjectedSession();
  InjectedSession(const InjectedSession&) = delete;
  InjectedSession& operator=(const InjectedSession&) = delete;

  // CUPTI's callback (the subscriber's user data is the session).
  void on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data);

 private:
  void subscribe();
  void on_profiler_api(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                       const CUpti_CallbackData& data);
  void on_nvtx(CUpti_CallbackId id, const CUpti_NvtxData& data);
  void push_range(const std::string& name);
  void pop_range();
  void open_window();
  // Waits for the calling thread's context, so that the work launched in the
  // window is complete when CUPTI delivers it, then stops both recorders.
  void close_window();
  std::string registered_string(const void* handle);

  RecordRequest request_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<CuptiCollector> collector_;  // null where CUPTI could not start
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::mutex profiler_api_mutex_;
  bool profiler_window_open_ = false;  // between cudaProfilerStart and Stop
  std::mutex window_mutex_;
  int open_windows_ = 0;  // named NVTX ranges open at once (several threads)
  std::atomic<std::int64_t> next_step_{0};
  std::mutex strings_mutex_;
  std::unordered_map<const void*, std::string> registered_strings_;  // nvtxDomainRegisterString
};

}  // namespace parity::profiler::inject
