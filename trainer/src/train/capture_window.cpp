#include "capture_window.hpp"

#include <exception>

#ifdef PARITY_HAVE_CUDA_BACKEND
#include "parity/profiler/cupti_collector.hpp"
#endif

namespace parity::trainer {

#ifdef PARITY_HAVE_CUDA_BACKEND
struct CaptureWindow::Gpu {
  explicit Gpu(profiler::Recorder& recorder) : collector(recorder) {}
  profiler::CuptiCollector collector;
};
#else
struct CaptureWindow::Gpu {};
#endif

CaptureWindow::CaptureWindow(profiler::Recorder* recorder, Backend& backend)
    : recorder_(recorder), backend_(backend) {
#ifdef PARITY_HAVE_CUDA_BACKEND
  if (recorder_ && backend_.name() == "cuda") {
    gpu_ = std::make_unique<Gpu>(*recorder_);
    if (recorder_->capturing()) gpu_->collector.start();
  }
#endif
}

CaptureWindow::~CaptureWindow() {
  // The collector's last records need the GPU's queued work finished. A
  // destructor cannot throw: a failed GPU has been reported by the call that
  // failed, and its records stay incomplete (counted as such).
  if (!gpu_) return;
  try {
    backend_.synchronize();
  } catch (const std::exception&) {
  }
}

void CaptureWindow::open() {
  if (!recorder_ || recorder_->capturing()) return;
  recorder_->start();
#ifdef PARITY_HAVE_CUDA_BACKEND
  if (gpu_) gpu_->collector.start();
#endif
}

void CaptureWindow::close() {
  if (!is_open()) return;
#ifdef PARITY_HAVE_CUDA_BACKEND
  if (gpu_) {
    backend_.synchronize();
    gpu_->collector.stop();
  }
#endif
  recorder_->stop();
}

}  // namespace parity::trainer
