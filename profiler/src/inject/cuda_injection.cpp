// The entry points of libparity_cuda_inject.so.
//
// `parity record` names this library in CUDA_INJECTION64_PATH: the CUDA
// driver loads it into every process that initializes CUDA and calls
// InitializeInjection from cuInit, before the program's first CUDA work (the
// way Nsight Systems and Kineto's daemon mode attach). It also names it in
// NVTX_INJECTION64_PATH, so that NVTX hands its calls to CUPTI, whose
// InitializeInjectionNvtx2 this library forwards to.
#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>

#include "injected_session.hpp"

namespace {

std::unique_ptr<parity::profiler::inject::InjectedSession> session;
std::once_flag started;

void start_session() {
  try {
    const auto request = parity::profiler::record_request_from_environment();
    if (!request) {
      std::fputs("parity record: CUDA_INJECTION64_PATH names Parity's injection library, but "
                 "PARITY_RECORD_OUTPUT is not set; nothing is recorded (run the program through "
                 "'parity record -- COMMAND')\n",
                 stderr);
      return;
    }
    session = std::make_unique<parity::profiler::inject::InjectedSession>(*request);
  } catch (const std::exception& error) {
    // Recording never takes the program down: it runs on unrecorded.
    std::fprintf(stderr, "parity record: error: %s; the program runs unrecorded\n", error.what());
  }
}

}  // namespace

extern "C" {

// Ends the recording: delivers the last records and finalizes the database.
// Runs at exit; idempotent.
__attribute__((visibility("default"))) void parity_record_finish() {
  try {
    session.reset();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "parity record: error while finishing the trace: %s\n", error.what());
  }
}

// Called by the CUDA driver from cuInit; 1 tells it the library is ready.
__attribute__((visibility("default"))) int InitializeInjection() {
  std::call_once(started, [] {
    start_session();
    std::atexit(parity_record_finish);
  });
  return 1;
}

// Called by NVTX on a thread's first NVTX call: handed on to CUPTI's own.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* get_export_table) {
  using Initialize = int (*)(const void*);
  // CUPTI's definition, not this one: looked up in the libcupti this library
  // uses, which the program may have loaded before it (PyTorch does), so
  // that RTLD_NEXT would miss it.
  Initialize cupti_initialize = nullptr;
  Dl_info cupti{};
  if (dladdr(reinterpret_cast<const void*>(&cuptiSubscribe), &cupti) && cupti.dli_fname) {
    if (void* library = dlopen(cupti.dli_fname, RTLD_LAZY | RTLD_NOLOAD))
      cupti_initialize =
          reinterpret_cast<Initialize>(dlsym(library, "InitializeInjectionNvtx2"));
  }
  if (!cupti_initialize) {
    std::fputs("parity record: libcupti has no InitializeInjectionNvtx2: NVTX ranges are not "
               "recorded\n",
               stderr);
    return 0;
  }
  return cupti_initialize(get_export_table);
}

}  // extern "C"
