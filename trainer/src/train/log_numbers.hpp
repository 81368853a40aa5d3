// Numbers as a training run's log lines print them: printf formats, so that
// "loss is 2.30258512" reads as the seeds' logs do.
#pragma once

#include <cstdio>
#include <string>

namespace parity::trainer {

inline std::string format_number(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace parity::trainer
