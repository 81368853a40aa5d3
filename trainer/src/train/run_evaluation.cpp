// Evaluating a model over a loader's images (run_evaluation.hpp).
#include "run_evaluation.hpp"

#include <algorithm>
#include <vector>

#include "log_numbers.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"

namespace parity::trainer {

EvalResult evaluate_model(Backend& backend, ResNet& model, Loader& loader, std::int64_t classes) {
  EvalResult result;
  std::int64_t top1 = 0, top5 = 0;
  double loss_sum = 0.0;
  loader.start_epoch(0);
  while (auto batch = loader.next()) {
    if (batch->n == 0) continue;
    const Tensor logits = model.forward(
        backend.from_host({batch->n, batch->c, batch->h, batch->w}, batch->images), Mode::kEval);
    const std::vector<float> host = backend.to_host(logits);
    const LossResult loss = softmax_cross_entropy(host, batch->labels, classes, {});
    top1 += loss.correct;
    top5 += count_top_k(host, batch->labels, classes, std::min<std::int64_t>(5, classes));
    loss_sum += loss.loss * double(batch->n);
    result.images += batch->n;
  }
  if (result.images > 0) {
    result.top1 = double(top1) / double(result.images);
    result.top5 = double(top5) / double(result.images);
    result.loss = loss_sum / double(result.images);
  }
  return result;
}

void print_eval(std::ostream& log, std::int64_t epoch, const EvalResult& r) {
  log << "epoch: " << epoch << " eval top-1: " << format_number(r.top1 * 100, "%.2f")
      << "% top-5: " << format_number(r.top5 * 100, "%.2f")
      << "% loss: " << format_number(r.loss, "%.4f") << " (" << r.images << " images)" << std::endl;
}

}  // namespace parity::trainer
