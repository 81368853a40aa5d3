// parity grad-probe's verdicts on probes written here bit by bit: the
// similarity arithmetic, the two rules for a bad step (below the threshold,
// a fall larger than the margin), steps one side lacks, and probes that
// cannot be compared.
#include <catch2/catch.hpp>

#include "expect_error.hpp"
#include "parity/analyzer/grad_probe/grad_probe_compare.hpp"
#include "parity/importers/grad_probe/grad_probe_writer.hpp"
#include "parity/importers/grad_probe/sign_bits.hpp"
#include "temp_dir.hpp"

using namespace parity::analyzer;
using parity::importers::GradProbeWriter;
using parity::importers::lay_out_grad_probe;
using parity::importers::pack_signs;
using parity::test::expect_error;

namespace {

// A probe of "w" [1000] and "b" [24]; at each step, flips[k] elements of w
// from element `from` on are negative (the rest positive) and b is all positive.
void write_probe(const std::filesystem::path& dir, const std::vector<std::int64_t>& steps,
                 const std::vector<int>& flips, std::vector<std::int64_t> w_shape = {1000},
                 int from = 0) {
  GradProbeWriter writer(dir, lay_out_grad_probe("test", "tiny", {{"w", w_shape}, {"b", {24}}}));
  for (std::size_t k = 0; k < steps.size(); ++k) {
    std::vector<float> w(1000, 1.0f), b(24, 1.0f);
    for (int i = from; i < from + flips[k]; ++i) w[std::size_t(i)] = -1.0f;
    pack_signs(w, writer.parameter_words(0));
    pack_signs(b, writer.parameter_words(1));
    writer.write_step(steps[k]);
  }
}

}  // namespace

TEST_CASE("sign similarity per parameter and per step, and the first step below the threshold",
          "[unit]") {
  TempDir dir;
  write_probe(dir / "a", {0, 1, 2, 3}, {0, 0, 0, 0});
  write_probe(dir / "b", {0, 1, 2, 3}, {0, 10, 40, 600});
  const GradProbeComparison c = compare_grad_probes(dir / "a", dir / "b", {});
  REQUIRE(c.steps.size() == 4);
  CHECK(c.elements == 1024);
  CHECK(c.steps[1].differing == 10);
  CHECK(c.steps[1].similarity == Approx(1.0 - 10.0 / 1024));
  CHECK(c.similarity(c.steps[1], 0) == Approx(0.99));
  CHECK(c.similarity(c.steps[1], 1) == 1.0);
  // 0.961 is below 0.97: step 2 is the first bad one, though it fell only 0.029.
  REQUIRE(c.first_bad);
  CHECK(c.steps[*c.first_bad].step == 2);
  CHECK(c.steps[2].verdict == ProbeStep::Verdict::kBelow);
  CHECK(*c.steps[2].fall == Approx(30.0 / 1024));
  CHECK_FALSE(c.passed());
}

TEST_CASE("a fall larger than the margin is a bad step above the threshold", "[unit]") {
  TempDir dir;
  write_probe(dir / "a", {0, 1, 2}, {0, 0, 0});
  write_probe(dir / "b", {0, 1, 2}, {0, 20, 60});
  // 1.0, 0.980, 0.941: with the threshold at 0.9, step 2 falls 0.039 > 0.03.
  const GradProbeComparison c = compare_grad_probes(dir / "a", dir / "b", {0.9, 0.03});
  REQUIRE(c.first_bad);
  CHECK(c.steps[*c.first_bad].step == 2);
  CHECK(c.steps[2].verdict == ProbeStep::Verdict::kFell);
  CHECK(compare_grad_probes(dir / "a", dir / "b", {0.9, 0.05}).passed());
}

// Two runs as chaotic as ResNet-50 on a batch of 4 after its first update:
// each far from the float64 run, and from each other, by as much. Only a run
// that strays further from R than B does is bad.
TEST_CASE("with a float64 reference a step is bad where A strays from it more than B", "[unit]") {
  TempDir dir;
  write_probe(dir / "r", {0, 1, 2, 3}, {0, 0, 0, 0});
  write_probe(dir / "b", {0, 1, 2, 3}, {0, 5, 400, 200});
  // Step 0: 2 of 1024 against none, both under the floor of 0.1%: 1.95x.
  // Step 1: 4 against 5. Step 2: 420 against 400 elsewhere, 1.05x, though A
  // and B share no flipped sign. Step 3: 500 against 200, 2.5x.
  write_probe(dir / "a", {0, 1, 2, 3}, {2, 4, 420, 500}, {1000}, 500);
  const GradProbeComparison plain = compare_grad_probes(dir / "a", dir / "b", {});
  REQUIRE(plain.first_bad);
  CHECK(plain.steps[*plain.first_bad].step == 2);  // 0.199 is far below 0.97

  const GradProbeComparison c = compare_grad_probes(dir / "a", dir / "b", {}, dir / "r");
  REQUIRE(c.reference);
  REQUIRE(c.steps.size() == 4);
  REQUIRE(c.steps[0].reference);
  CHECK(c.steps[0].reference->ratio == Approx((2.0 / 1024) / 1e-3));
  CHECK(c.steps[1].reference->ratio == Approx(0.8));
  CHECK(c.steps[2].reference->a == Approx(1.0 - 420.0 / 1024));
  CHECK(c.steps[2].reference->b == Approx(1.0 - 400.0 / 1024));
  CHECK(c.steps[2].similarity == Approx(1.0 - 820.0 / 1024));
  CHECK(c.steps[2].verdict == ProbeStep::Verdict::kGood);
  REQUIRE(c.first_bad);
  CHECK(c.steps[*c.first_bad].step == 3);
  CHECK(c.steps[3].verdict == ProbeStep::Verdict::kFurtherFromReference);
  CHECK(c.steps[3].reference->ratio == Approx(2.5));
  // The limit is an option: at 1.2x step 0's 1.95x is too far; at 3x nothing is.
  CHECK(compare_grad_probes(dir / "a", dir / "b", {0.97, 0.03, 1.2}, dir / "r").first_bad == 0u);
  CHECK(compare_grad_probes(dir / "a", dir / "b", {0.97, 0.03, 3.0}, dir / "r").passed());
}

TEST_CASE("steps the reference lacks keep the threshold rules; a bad ratio is refused",
          "[unit]") {
  TempDir dir;
  write_probe(dir / "r", {0}, {0});
  write_probe(dir / "a", {0, 1}, {0, 0});
  write_probe(dir / "b", {0, 1}, {0, 100});
  const GradProbeComparison c = compare_grad_probes(dir / "a", dir / "b", {}, dir / "r");
  CHECK(c.steps[0].reference);
  CHECK_FALSE(c.steps[1].reference);
  CHECK(c.steps[1].verdict == ProbeStep::Verdict::kBelow);
  expect_error([&] { compare_grad_probes(dir / "a", dir / "b", {0.97, 0.03, 0.5}, dir / "r"); },
               "is under 1", {"--reference-ratio"});
}

TEST_CASE("steps only one side holds are listed, not compared", "[unit]") {
  TempDir dir;
  write_probe(dir / "a", {0, 2, 3, 7}, {0, 0, 0, 0});
  write_probe(dir / "b", {1, 2, 3, 5}, {0, 0, 0, 0});
  const GradProbeComparison c = compare_grad_probes(dir / "a", dir / "b", {});
  REQUIRE(c.steps.size() == 2);
  CHECK(c.steps[0].step == 2);
  CHECK(c.only_a == std::vector<std::int64_t>{0, 7});
  CHECK(c.only_b == std::vector<std::int64_t>{1, 5});
  CHECK(c.passed());
}

TEST_CASE("probes of different shapes, or a threshold outside [0, 1], are refused", "[unit]") {
  TempDir dir;
  write_probe(dir / "a", {0}, {0});
  write_probe(dir / "b", {0}, {0}, {10, 100});
  expect_error([&] { compare_grad_probes(dir / "a", dir / "b", {}); }, "w is [1000] in A, [10, 100] in B",
               {(dir / "a").string()});
  expect_error([&] { compare_grad_probes(dir / "a", dir / "a", {1.5, 0.03}); }, "not in [0, 1]",
               {"--threshold"});
  // A reference of another shape is named as R.
  expect_error([&] { compare_grad_probes(dir / "a", dir / "a", {}, dir / "b"); },
               "w is [1000] in A, [10, 100] in R", {(dir / "b").string()});
}
