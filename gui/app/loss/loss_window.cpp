#include "loss_window.hpp"

#include <QLabel>
#include <QVBoxLayout>
#include <memory>

#include "loss/loss_chart.hpp"
#include "parity/analyzer/loss/loss_report.hpp"
#include "parity/gui/loss/loss_loader.hpp"

namespace parity::gui {

LossWindow::LossWindow(const QString& a, const QString& b, QWidget* parent)
    : QMainWindow(parent),
      verdict_(new QLabel(tr("Reading the loss curves…"))),
      reading_(new QLabel),
      chart_(new LossChart),
      task_(new BackgroundTask(this)) {
  setWindowTitle(tr("Loss: %1 vs %2").arg(a, b));
  verdict_->setObjectName(QStringLiteral("verdict"));
  reading_->setObjectName(QStringLiteral("reading"));
  reading_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->addWidget(verdict_);
  layout->addWidget(reading_);
  layout->addWidget(chart_, 1);
  setCentralWidget(central);
  resize(960, 600);
  connect(task_, &BackgroundTask::failed, this, &LossWindow::show_failure);
  task_->start([this, a, b](TaskControl& control) -> std::function<void()> {
    auto result = std::make_shared<analyzer::LossComparison>(load_loss_comparison(a, b, control));
    return [this, result] { show_comparison(std::move(*result)); };
  });
}

void LossWindow::show_comparison(analyzer::LossComparison comparison) {
  verdict_->setText(QString::fromStdString(analyzer::loss_verdict(comparison)));
  verdict_->setStyleSheet(comparison.matched()
                              ? QStringLiteral("color: #2e7d32; font-weight: bold")
                              : QStringLiteral("color: #c62828; font-weight: bold"));
  reading_->setText(QString::fromStdString(analyzer::first_loss_reading(comparison)));
  chart_->set_comparison(comparison);
  comparison_ = std::move(comparison);
  state_ = State::kLoaded;
  emit load_ended();
}

void LossWindow::show_failure(const QString& message) {
  verdict_->setText(tr("Could not compare: %1").arg(message));
  verdict_->setStyleSheet(QStringLiteral("color: #c62828"));
  state_ = State::kFailed;
  emit load_ended();
}

}  // namespace parity::gui
