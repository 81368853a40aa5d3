#include "nvtx_message.hpp"

namespace parity::profiler::inject {

std::string utf8_from_wide(const wchar_t* text) {
  if (!text) return {};
  std::string out;
  for (; *text; ++text) {
    auto code = static_cast<std::uint32_t>(*text);
    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) code = 0xFFFD;  // not a character
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  return out;
}

std::string nvtx_message(const nvtxEventAttributes_t* attributes,
                         const RegisteredString& registered) {
  if (attributes) {
    switch (attributes->messageType) {
      case NVTX_MESSAGE_TYPE_ASCII:
        if (attributes->message.ascii) return attributes->message.ascii;
        break;
      case NVTX_MESSAGE_TYPE_UNICODE:
        if (attributes->message.unicode) return utf8_from_wide(attributes->message.unicode);
        break;
      case NVTX_MESSAGE_TYPE_REGISTERED:
        return registered(attributes->message.registered);
      default:
        break;
    }
  }
  return "(no message)";
}

}  // namespace parity::profiler::inject
