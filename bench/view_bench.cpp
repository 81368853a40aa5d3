// view_bench: parity-view's performance targets on a trace (make one with
// `parity synth --events 10000000`), in the real window offscreen:
//   first paint   open -> loaded -> the timeline painted with the trace
//   frames        layout + paint while zooming in across six orders of
//                 magnitude and back, against the same frames drawn without
//                 folding (every event its own box: the no-level-of-detail peer)
//   memory        resident bytes per event once loaded and once analyzed
// Usage: view_bench TRACE.db [--frames-per-decade N]
#include <malloc.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "main_window.hpp"
#include "parity/gui/timeline/timeline_loader.hpp"
#include "parity/gui/timeline/timeline_painter.hpp"
#include "timeline/timeline_widget.hpp"

using namespace parity::gui;

namespace {

std::int64_t status_kb(const std::string& key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  return 0;
}

struct FrameTimes {
  std::vector<double> ms;
  std::size_t boxes = 0;
  double quantile(double q) {
    std::sort(ms.begin(), ms.end());
    return ms.empty() ? 0 : ms[static_cast<std::size_t>(q * static_cast<double>(ms.size() - 1))];
  }
};

// Zooms from the whole trace in to a millionth of it, about the middle, and
// back out; each frame laid out and painted into an image of the window's size.
FrameTimes sweep(const std::vector<TraceView>& traces, ViewState& state, QSize size, double fold_px,
                 int per_decade) {
  FrameTimes times;
  LayoutMetrics metrics;
  metrics.fold_px = fold_px;
  QImage image(size, QImage::Format_RGB32);
  state.fit();
  const std::int64_t anchor = state.extent().start_ns + state.extent().length_ns() / 2;
  const double step = std::pow(10.0, -1.0 / per_decade);
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 6 * per_decade; ++i) {
      state.zoom(pass == 0 ? step : 1 / step, anchor);
      QElapsedTimer timer;
      timer.start();
      const Frame frame = layout_timeline(traces, state, size, 0, metrics);
      QPainter painter(&image);
      paint_timeline(painter, frame, traces);
      painter.end();
      times.ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
      times.boxes = std::max(times.boxes, frame.boxes.size());
    }
  }
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: view_bench TRACE.db [--frames-per-decade N]\n");
    return 2;
  }
  const QString path = QString::fromLocal8Bit(argv[1]);
  const int per_decade = argc >= 4 && std::string(argv[2]) == "--frames-per-decade" ? std::atoi(argv[3]) : 20;

  double load_only_s = 0;
  {
    QElapsedTimer timer;
    timer.start();
    const TimelineData warm_up = load_timeline(path.toStdString());  // also warms the page cache
    load_only_s = static_cast<double>(timer.nsecsElapsed()) / 1e9;
  }
  malloc_trim(0);
  const std::int64_t rss_before = status_kb("VmRSS");
  MainWindow window;
  window.resize(1920, 1080);
  window.show();
  QSignalSpy shown(&window, &MainWindow::timeline_shown);
  QSignalSpy loaded(&window, &MainWindow::traces_loaded);
  QSignalSpy analyzed(&window, &MainWindow::report_ready);
  QElapsedTimer open;
  open.start();
  window.open_traces({path});
  if (!shown.wait(120'000)) {
    std::fprintf(stderr, "view_bench: %s did not load\n", argv[1]);
    return 1;
  }
  window.timeline()->repaint();
  const double first_paint_s = static_cast<double>(open.nsecsElapsed()) / 1e9;
  const double first_frame_ms = window.timeline()->last_frame_ms();
  if (loaded.count() == 0 && !loaded.wait(120'000)) {
    std::fprintf(stderr, "view_bench: %s did not load its CUDA API calls\n", argv[1]);
    return 1;
  }
  const double all_rows_s = static_cast<double>(open.nsecsElapsed()) / 1e9;
  malloc_trim(0);
  const std::int64_t rss_loaded = status_kb("VmRSS");
  if (analyzed.count() == 0 && !analyzed.wait(300'000)) {
    std::fprintf(stderr, "view_bench: the analysis did not finish\n");
    return 1;
  }
  const double analyzed_s = static_cast<double>(open.nsecsElapsed()) / 1e9;
  malloc_trim(0);
  const std::int64_t rss_analyzed = status_kb("VmRSS");

  const TimelineData& data = *window.traces().front();
  const auto events = static_cast<double>(data.events);
  const QSize size = window.timeline()->size();
  const std::vector<TraceView> traces = window.timeline()->traces();
  FrameTimes folded = sweep(traces, window.state(), size, LayoutMetrics{}.fold_px, per_decade);
  FrameTimes naive = sweep(traces, window.state(), size, 0, per_decade);

  std::printf("parity-view benchmark: %s, %.0f events, view %dx%d\n", argv[1], events, size.width(),
              size.height());
  std::printf("| measure | parity-view | no folding (peer) | ratio |\n|---|---|---|---|\n");
  std::printf("| first paint after open (s) | %.3f | | |\n", first_paint_s);
  std::printf("| every row loaded, CUDA API calls too (s) | %.3f | | |\n", all_rows_s);
  std::printf("| load_timeline of every row, alone (s) | %.3f | | |\n", load_only_s);
  std::printf("| first frame: layout + paint (ms) | %.1f | | |\n", first_frame_ms);
  std::printf("| analysis done, panels filled (s) | %.3f | | |\n", analyzed_s);
  std::printf("| zoom sweep frames | %zu | %zu | |\n", folded.ms.size(), naive.ms.size());
  const double p50 = folded.quantile(0.5), naive_p50 = naive.quantile(0.5);
  const double p95 = folded.quantile(0.95), naive_p95 = naive.quantile(0.95);
  std::printf("| frame p50 (ms) | %.2f | %.2f | %.1fx |\n", p50, naive_p50, naive_p50 / p50);
  std::printf("| frame p95 (ms) | %.2f | %.2f | %.1fx |\n", p95, naive_p95, naive_p95 / p95);
  std::printf("| frame max (ms) | %.2f | %.2f | |\n", folded.quantile(1), naive.quantile(1));
  std::printf("| most boxes in a frame | %zu | %zu | |\n", folded.boxes, naive.boxes);
  std::printf("| held arrays (bytes/event) | %.1f | | |\n", static_cast<double>(data.memory_bytes()) / events);
  std::printf("| resident after load (bytes/event) | %.1f | | |\n",
              static_cast<double>(rss_loaded - rss_before) * 1024 / events);
  std::printf("| resident after analysis (bytes/event) | %.1f | | |\n",
              static_cast<double>(rss_analyzed - rss_before) * 1024 / events);
  std::printf("| peak resident (bytes/event) | %.1f | | |\n",
              static_cast<double>(status_kb("VmHWM") - rss_before) * 1024 / events);
  const bool ok = first_paint_s <= 1.0 && p95 <= 16.7 &&
                  static_cast<double>(rss_analyzed - rss_before) * 1024 / events <= 32;
  std::printf("targets (first paint <= 1 s, p95 <= 16.7 ms, <= 32 bytes/event): %s\n", ok ? "met" : "NOT met");
  return 0;
}
