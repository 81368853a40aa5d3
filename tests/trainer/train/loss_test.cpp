// softmax_cross_entropy and count_top_k against PyTorch: the loss and the
// gradient of the logits in both label-smoothing conventions (PyTorch's
// F.cross_entropy(label_smoothing=eps), and MindSpore's on = 1 - eps,
// off = eps / (K - 1) written out in float64 by the peer script), for several
// eps, 10 and 1000 classes, ordinary and huge logits; top-k hits against
// torch.topk; bad inputs are parity::Errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "parity/core/error.hpp"
#include "parity/trainer/loss/softmax_cross_entropy.hpp"
#include "peer.hpp"

using namespace parity::trainer;
using namespace train_test;

namespace {

constexpr std::int64_t kBatch = 32;

struct LossCase {
  std::int64_t classes;
  double eps;
  SmoothingConvention convention;
  double scale;
  float magnitude;  // logits uniform in [-magnitude, magnitude]
  std::vector<float> logits;
  std::vector<std::int32_t> labels;
};

// Random logits, every row free of ties (so that torch.topk's choice among
// equal values cannot matter), and labels of every rank: half the rows get
// the class ranked r-th (r in 0..6), the other half a uniform class.
void fill(LossCase& c, std::uint32_t seed) {
  c.logits = uniform_floats(std::size_t(kBatch * c.classes), seed, -c.magnitude, c.magnitude);
  std::mt19937 engine(seed + 1000);
  c.labels.resize(kBatch);
  for (std::int64_t n = 0; n < kBatch; ++n) {
    float* row = c.logits.data() + n * c.classes;
    std::vector<std::int32_t> order(std::size_t(c.classes));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return row[a] > row[b]; });
    for (std::size_t i = 1; i < order.size(); ++i)
      if (row[order[i]] >= row[order[i - 1]])
        row[order[i]] = std::nextafter(row[order[i - 1]], -INFINITY);
    c.labels[std::size_t(n)] = n % 2 == 0
                                   ? order[engine() % 7]
                                   : std::int32_t(engine() % static_cast<std::uint32_t>(c.classes));
  }
}

std::string describe(const LossCase& c) {
  return std::string(c.convention == SmoothingConvention::kPyTorch ? "pytorch" : "mindspore") +
         " K=" + std::to_string(c.classes) + " eps=" + std::to_string(c.eps) +
         " scale=" + std::to_string(c.scale) + " |logits|<=" + std::to_string(c.magnitude);
}

}  // namespace

TEST_CASE("softmax cross-entropy and top-k agree with PyTorch in both smoothing conventions",
          "[unit]") {
  std::vector<LossCase> cases;
  std::uint32_t seed = 1;
  for (const auto convention : {SmoothingConvention::kPyTorch, SmoothingConvention::kMindSpore})
    for (const std::int64_t classes : {10, 1000})
      for (const double eps : {0.0, 0.1, 0.25})
        // 3000 is past exp's range even in double: only a max-subtracting
        // (log-sum-exp) implementation stays finite there.
        for (const float magnitude : {4.f, 3000.f}) {
          LossCase c{classes, eps, convention, magnitude > 100 ? 1024.0 : 1.0, magnitude, {}, {}};
          fill(c, seed++);
          cases.push_back(std::move(c));
        }

  TempDir dir;
  std::vector<NamedTensor> inputs;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const LossCase& c = cases[i];
    const std::string name = "case" + std::to_string(i);
    const std::vector<std::int64_t> labels(c.labels.begin(), c.labels.end());
    const std::vector<double> options{
        c.eps, c.convention == SmoothingConvention::kPyTorch ? 0.0 : 1.0, c.scale};
    inputs.push_back(
        NamedTensor::from_values<float>(name + ".logits", {kBatch, c.classes}, c.logits));
    inputs.push_back(NamedTensor::from_values<std::int64_t>(name + ".labels", {kBatch}, labels));
    inputs.push_back(NamedTensor::from_values<double>(name + ".options", {3}, options));
  }
  const SafetensorsFile torch = run_peer(dir, "loss", inputs);

  for (std::size_t i = 0; i < cases.size(); ++i) {
    const LossCase& c = cases[i];
    const std::string name = "case" + std::to_string(i);
    INFO(describe(c));
    const LossResult ours =
        softmax_cross_entropy(c.logits, c.labels, c.classes, {c.eps, c.convention, c.scale});
    const double loss = torch.read(name + ".loss").values<double>().at(0);
    const std::vector<double> grad = torch.read(name + ".grad").values<double>();
    // Both sides work in float64 from the same float32 logits; only the
    // summation order differs (K terms of up to |log p| ~ 6000).
    CHECK(std::isfinite(ours.loss));
    CHECK(std::abs(ours.loss - loss) <= 1e-11 * std::max(1.0, std::abs(loss)));
    // Our gradient is the float64 value rounded to float32 (half an ulp,
    // 2^-24 relative), plus float64 rounding of softmax * sum(t) - t, whose
    // terms are at most scale / N.
    REQUIRE(ours.grad_logits.size() == grad.size());
    std::size_t bad = 0;
    for (std::size_t k = 0; k < grad.size(); ++k) {
      const double tolerance = std::ldexp(std::abs(grad[k]), -24) + 1e-12 * c.scale / kBatch;
      if (std::abs(double(ours.grad_logits[k]) - grad[k]) > tolerance) {
        if (bad++ < 3)
          UNSCOPED_INFO("grad[" << k << "] ours " << ours.grad_logits[k] << ", torch " << grad[k]);
      }
    }
    CHECK(bad == 0);

    const auto top1 = torch.read(name + ".top1").values<std::int64_t>().at(0);
    const auto top5 = torch.read(name + ".top5").values<std::int64_t>().at(0);
    CHECK(ours.correct == top1);
    CHECK(count_top_k(c.logits, c.labels, c.classes, 1) == top1);
    CHECK(count_top_k(c.logits, c.labels, c.classes, 5) == top5);
    // The labels were drawn to land on every rank, so these counts say something.
    CHECK(top1 > 0);
    CHECK(top5 > top1);
  }
}

TEST_CASE("count_top_k counts a tie with the label as a hit", "[unit]") {
  // All four classes score the same: the label's rank is 0 whatever k is.
  const std::vector<float> logits(8, 0.5f);
  const std::vector<std::int32_t> labels{3, 0};
  CHECK(count_top_k(logits, labels, 4, 1) == 2);
}

TEST_CASE("softmax cross-entropy refuses out-of-range labels and mismatched sizes", "[unit]") {
  const std::vector<float> logits = uniform_floats(3 * 10, 5, -1.f, 1.f);
  for (const std::int32_t bad : {-1, 10, 1000}) {
    const std::vector<std::int32_t> labels{0, bad, 9};
    INFO("label " << bad);
    CHECK_THROWS_AS(softmax_cross_entropy(logits, labels, 10, {}), parity::Error);
    CHECK_THROWS_WITH(softmax_cross_entropy(logits, labels, 10, {}),
                      Catch::Contains("label " + std::to_string(bad) + " of sample 1"));
  }
  // 30 logits are not 2 rows of 10 classes; one class is no classification.
  const std::vector<std::int32_t> two{0, 1};
  CHECK_THROWS_AS(softmax_cross_entropy(logits, two, 10, {}), parity::Error);
  const std::vector<float> single(2, 1.f);
  CHECK_THROWS_AS(softmax_cross_entropy(single, two, 1, {}), parity::Error);
}

TEST_CASE("count_top_k refuses out-of-range labels", "[unit]") {
  // Rows 0 and 1 of 3: the out-of-range label would read a neighbouring row.
  const std::vector<float> logits = uniform_floats(3 * 10, 6, -1.f, 1.f);
  for (const std::int32_t bad : {-1, 10}) {
    const std::vector<std::int32_t> labels{bad == 10 ? bad : 0, bad == -1 ? bad : 0, 9};
    INFO("label " << bad);
    CHECK_THROWS_AS(count_top_k(logits, labels, 10, 1), parity::Error);
  }
}
