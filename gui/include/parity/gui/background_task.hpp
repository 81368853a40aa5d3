// BackgroundTask: runs one piece of work off the GUI thread with progress and
// cancel, the way every slow action of parity-view runs (loading a trace,
// analyzing it, diffing checkpoints, statistics of a large selection), so no
// action stalls the window.
//
// Starting a task while one runs cancels the running one: its result is stale
// and is never delivered (each start gets a new generation; only the current
// generation's signals reach the receivers). Signals arrive on the thread that
// owns the task (the GUI thread), through queued calls.
#pragma once

#include <QFuture>
#include <QObject>
#include <QString>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

namespace parity::gui {

// Thrown by TaskControl::progress when the task was cancelled; work may let
// it propagate (the task then reports cancelled(), not failed()).
struct TaskCancelled {};

class TaskControl {
 public:
  TaskControl(std::shared_ptr<std::atomic<bool>> cancelled, std::function<void(double)> report)
      : cancelled_(std::move(cancelled)), report_(std::move(report)) {}
  bool cancelled() const { return cancelled_->load(std::memory_order_relaxed); }
  // Reports the fraction done (0..1) and throws TaskCancelled once cancelled.
  void progress(double fraction);
  void check() const {
    if (cancelled()) throw TaskCancelled{};
  }
  // A control for part `index` of `count` equal parts of this work: it
  // shares the cancel flag and maps its progress into the part's share.
  TaskControl part(std::size_t index, std::size_t count);

 private:
  std::shared_ptr<std::atomic<bool>> cancelled_;
  std::function<void(double)> report_;
  int last_percent_ = -1;
};

class BackgroundTask : public QObject {
  Q_OBJECT

 public:
  // Work runs on a pool thread. It returns a function that runs on the GUI
  // thread to hand over the result (it may be empty); an exception becomes
  // failed(message), TaskCancelled becomes cancelled().
  using Work = std::function<std::function<void()>(TaskControl&)>;

  explicit BackgroundTask(QObject* parent = nullptr);
  ~BackgroundTask() override;  // cancels and waits for the work

  void start(Work work);
  void cancel();
  bool running() const { return running_; }
  // Blocks until the current work has ended (tests, shutdown); its signals
  // still arrive through the event loop.
  void wait();

 signals:
  void progress(double fraction);
  void finished();
  void failed(const QString& message);
  void cancelled();

 private:
  void deliver(unsigned generation, const std::function<void()>& hand_over,
               const QString& error, bool was_cancelled);

  unsigned generation_ = 0;
  bool running_ = false;
  std::shared_ptr<std::atomic<bool>> cancel_flag_;
  QFuture<void> future_;
};

}  // namespace parity::gui
