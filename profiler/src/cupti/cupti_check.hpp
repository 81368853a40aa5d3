// Checks CUPTI results. Calls made for the application (constructor,
// start, stop) throw parity::Error naming the call, file:line and a hint;
// calls inside CUPTI's callbacks, which must not throw, log and go on.
#pragma once

#include <cupti.h>

#include <string>

namespace parity::profiler::cupti {

std::string describe_failure(CUptiResult result, const char* call, const char* file, int line);
void throw_failure(CUptiResult result, const char* call, const char* file, int line);
void log_failure(CUptiResult result, const char* call, const char* file, int line);

}  // namespace parity::profiler::cupti

#define PARITY_CUPTI_CHECK(call)                                                                \
  do {                                                                                          \
    const CUptiResult parity_cupti_result = (call);                                             \
    if (parity_cupti_result != CUPTI_SUCCESS)                                                   \
      ::parity::profiler::cupti::throw_failure(parity_cupti_result, #call, __FILE__, __LINE__); \
  } while (false)

#define PARITY_CUPTI_LOG(call)                                                                \
  do {                                                                                        \
    const CUptiResult parity_cupti_result = (call);                                           \
    if (parity_cupti_result != CUPTI_SUCCESS)                                                 \
      ::parity::profiler::cupti::log_failure(parity_cupti_result, #call, __FILE__, __LINE__); \
  } while (false)
