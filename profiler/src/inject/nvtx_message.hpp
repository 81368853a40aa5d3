// The text of an NVTX call's message: ASCII as it is, wide strings as UTF-8,
// registered string handles through the caller's table.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <functional>
#include <string>

namespace parity::profiler::inject {

std::string utf8_from_wide(const wchar_t* text);

using RegisteredString = std::function<std::string(const void* handle)>;
// "(no message)" where the attributes carry none.
std::string nvtx_message(const nvtxEventAttributes_t* attributes,
                         const RegisteredString& registered);

}  // namespace parity::profiler::inject
