// The trace's capture window for a GPU run: opening it starts the CUPTI
// collector with the recorder, closing it waits for the GPU's queued work,
// delivers its records and stops both, so kernels, copies and API calls are
// recorded in exactly the steps the trace holds. Outside the window no CUPTI
// activity is enabled. For a CPU run, or a build without CUDA, only the
// recorder is started and stopped.
#pragma once

#include <memory>

#include "parity/profiler/recorder.hpp"
#include "parity/trainer/backend/backend.hpp"

namespace parity::trainer {

class CaptureWindow {
 public:
  // `recorder` may be null (no trace): then open() and close() do nothing.
  // The backend and the recorder must outlive the window.
  CaptureWindow(profiler::Recorder* recorder, Backend& backend);
  ~CaptureWindow();
  CaptureWindow(const CaptureWindow&) = delete;
  CaptureWindow& operator=(const CaptureWindow&) = delete;

  bool is_open() const { return recorder_ && recorder_->capturing(); }
  void open();
  void close();

 private:
  struct Gpu;
  profiler::Recorder* recorder_;
  Backend& backend_;
  std::unique_ptr<Gpu> gpu_;  // null unless a CUDA build trains on the GPU with a trace
};

}  // namespace parity::trainer
