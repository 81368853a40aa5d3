#include "parity/gui/background_task.hpp"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <exception>

namespace parity::gui {

void TaskControl::progress(double fraction) {
  check();
  const int percent = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 100));
  if (percent == last_percent_) return;  // one signal per percent is plenty
  last_percent_ = percent;
  if (report_) report_(percent / 100.0);
}

TaskControl TaskControl::part(std::size_t index, std::size_t count) {
  const double share = 1.0 / static_cast<double>(std::max<std::size_t>(count, 1));
  return TaskControl(cancelled_, [this, index, share](double fraction) {
    progress((static_cast<double>(index) + fraction) * share);
  });
}

BackgroundTask::BackgroundTask(QObject* parent) : QObject(parent) {}

BackgroundTask::~BackgroundTask() {
  if (cancel_flag_) cancel_flag_->store(true);
  future_.waitForFinished();
}

void BackgroundTask::start(Work work) {
  if (cancel_flag_) cancel_flag_->store(true);  // the running work is stale now
  const unsigned generation = ++generation_;
  cancel_flag_ = std::make_shared<std::atomic<bool>>(false);
  running_ = true;
  auto flag = cancel_flag_;
  future_ = QtConcurrent::run([this, generation, flag, work = std::move(work)] {
    TaskControl control(flag, [this, generation](double fraction) {
      QMetaObject::invokeMethod(
          this,
          [this, generation, fraction] {
            if (generation == generation_) emit progress(fraction);
          },
          Qt::QueuedConnection);
    });
    std::function<void()> hand_over;
    QString error;
    bool was_cancelled = false;
    try {
      hand_over = work(control);
      was_cancelled = control.cancelled();
    } catch (const TaskCancelled&) {
      was_cancelled = true;
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    } catch (...) {
      error = QStringLiteral("unknown error");
    }
    QMetaObject::invokeMethod(
        this,
        [this, generation, hand_over, error, was_cancelled] {
          deliver(generation, hand_over, error, was_cancelled);
        },
        Qt::QueuedConnection);
  });
}

void BackgroundTask::deliver(unsigned generation, const std::function<void()>& hand_over,
                             const QString& error, bool was_cancelled) {
  if (generation != generation_) return;  // a newer start made this result stale
  running_ = false;
  if (was_cancelled) {
    emit cancelled();
  } else if (!error.isEmpty()) {
    emit failed(error);
  } else {
    if (hand_over) hand_over();
    emit finished();
  }
}

void BackgroundTask::cancel() {
  if (cancel_flag_) cancel_flag_->store(true);
}

void BackgroundTask::wait() { future_.waitForFinished(); }

}  // namespace parity::gui
