// Captures parity::log messages for the lifetime of the object, for tests
// that expect a warning or an error (which would otherwise fail the run).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "parity/core/log.hpp"

class ScopedLogCapture {
 public:
  ScopedLogCapture() {
    previous_ = parity::log::set_sink([this](parity::log::Level, std::string_view message) {
      std::lock_guard lock(mutex_);
      messages_.emplace_back(message);
    });
  }
  ~ScopedLogCapture() { parity::log::set_sink(std::move(previous_)); }
  std::vector<std::string> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }

 private:
  parity::log::Sink previous_;
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};
