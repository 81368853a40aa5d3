// The float64 reference verdict (reference_verdict.hpp) against errors worked
// out by hand: A passes where its error against R is within the factors of
// B's, rounding-level errors on both sides pass through the float32 floor,
// and NaN that only A has fails; and `parity compare --reference` end to
// end, where a pair allclose refuses passes against R and a real difference
// fails naming the record.
#include "parity/analyzer/compare/reference_verdict.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "dump_fixture.hpp"
#include "parity/importers/dump/dump_writer.hpp"
#include "parity/importers/dump/tensor_stats.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

using parity::analyzer::reference_errors;
using parity::analyzer::ReferenceLimits;
using parity::importers::NamedTensor;

namespace {

NamedTensor floats(const std::vector<float>& v) {
  return NamedTensor::from_values<float>("t", {static_cast<std::int64_t>(v.size())}, v);
}
NamedTensor doubles(const std::vector<double>& v) {
  return NamedTensor::from_values<double>("t", {static_cast<std::int64_t>(v.size())}, v);
}
parity::importers::TensorStats stats_of(const std::vector<double>& v) {
  return parity::importers::compute_stats(std::span<const double>(v));
}

}  // namespace

TEST_CASE("reference verdict: A's errors against R over B's, by hand", "[unit][compare]") {
  const std::vector<double> r{1.0, -2.0, 3.0, 4.0};
  const ReferenceLimits limits;
  // B off by 1e-3 on one element; A by 1e-3 on two and 4e-3 on one.
  const auto verdict = reference_errors(floats({1.001f, -2.0f, 3.0f, 4.0f}),
                                        floats({1.0f, -2.0f, 3.0f, 4.0f}), doubles(r),
                                        stats_of(r), limits);
  // |A - R| as float32 holds it, worked out in float64.
  const double e0 = std::abs(double(1.001f) - 1.0);
  CHECK(verdict.mean_a == Approx(e0 / 4).epsilon(1e-12));
  CHECK(verdict.max_a == Approx(e0).epsilon(1e-12));
  CHECK(verdict.mean_b == 0);
  // B exact: its error is raised to float32's rounding of R (2^-24 x rms, x max).
  const double rms = std::sqrt((1 + 4 + 9 + 16) / 4.0);
  CHECK(verdict.mean_ratio == Approx((e0 / 4) / (0x1p-24 * rms)).epsilon(1e-9));
  CHECK(verdict.max_ratio == Approx(e0 / (0x1p-24 * 4.0)).epsilon(1e-9));
  CHECK_FALSE(verdict.passed);

  // Both exact, or both off by the same: ratio 1.
  const auto exact =
      reference_errors(floats({1, -2, 3, 4}), floats({1, -2, 3, 4}), doubles(r), stats_of(r), limits);
  CHECK(exact.mean_ratio == 1);
  CHECK(exact.max_ratio == 1);
  CHECK(exact.passed);
}

TEST_CASE("reference verdict: within the factors passes, beyond fails, NaN only in A fails",
          "[unit][compare]") {
  std::mt19937 random(7);
  std::normal_distribution<double> normal;
  std::vector<double> r(1000);
  for (double& x : r) x = normal(random);
  const auto off_by = [&](double scale) {
    std::vector<float> v(r.size());
    std::mt19937 noise_random(11);
    for (std::size_t i = 0; i < r.size(); ++i)
      v[i] = static_cast<float>(r[i] + scale * normal(noise_random));
    return v;
  };
  const std::vector<float> b = off_by(1e-5);
  const ReferenceLimits limits;
  CHECK(reference_errors(floats(off_by(1.5e-5)), floats(b), doubles(r), stats_of(r), limits).passed);
  const auto worse = reference_errors(floats(off_by(3e-5)), floats(b), doubles(r), stats_of(r), limits);
  CHECK(worse.mean_ratio == Approx(3).epsilon(0.05));
  CHECK_FALSE(worse.passed);
  CHECK(reference_errors(floats(off_by(3e-5)), floats(b), doubles(r), stats_of(r), {4, 10}).passed);
  std::vector<float> with_nan = b;
  with_nan[5] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(reference_errors(floats(with_nan), floats(b), doubles(r), stats_of(r), limits).passed);
}

TEST_CASE("parity compare --reference: rounding passes against R, a real difference fails",
          "[e2e][compare]") {
  TempDir dir;
  // R: each record in float64; B: R through float32 with noise of 1e-5; A:
  // noise of the same size everywhere but one record, where it is 1e-3.
  const auto records = fixture::small_network();
  const auto write = [&](const std::string& name, double noise, const std::string& planted) {
    parity::importers::DumpWriter writer(dir / name, {});
    std::mt19937 random(name == "a" ? 1 : 2);
    std::normal_distribution<double> normal;
    for (const auto& record : records) {
      const std::vector<float> base = fixture::values_of(record);
      std::vector<double> values(base.begin(), base.end());
      if (noise > 0) {
        const double scale = record.name == planted ? 1e-3 : noise;
        std::vector<float> rounded(values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
          rounded[i] = static_cast<float>(values[i] + scale * normal(random));
        writer.write(record, std::span<const float>(rounded));
      } else {
        writer.write(record, std::span<const double>(values));
      }
    }
  };
  write("r", 0, "");
  write("b", 1e-5, "");
  write("a", 1e-5, "");
  write("bad", 1e-5, "layer1.0.conv1");

  const auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), PARITY_CLI);
    return run_process(args);
  };
  // Without R, the noise alone is past float32's default tolerance.
  CHECK(run({"compare", (dir / "a").string(), (dir / "b").string()}).exit_code == 1);
  const auto clean = run({"compare", (dir / "a").string(), (dir / "b").string(), "--reference",
                          (dir / "r").string()});
  INFO(clean.out << clean.err);
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.find("first mismatch: forward: none; backward: none; update: none") == 0);
  CHECK(clean.out.find("pairs judged against it") != std::string::npos);
  const auto bad = run({"compare", (dir / "bad").string(), (dir / "b").string(), "--reference",
                        (dir / "r").string()});
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.find("first mismatch: forward: step 0 forward layer1.0.conv1 (output): reference: "
                     "A's error") == 0);
  // Limits are checked.
  CHECK(run({"compare", (dir / "a").string(), (dir / "b").string(), "--reference",
             (dir / "r").string(), "--reference-mean-ratio", "0.5"})
            .exit_code == 2);
}
