// The analyses of the hand-made small trace (small_trace.hpp) against the
// numbers worked out on paper there.
#include <catch2/catch.hpp>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/profile/trace_data.hpp"
#include "small_trace.hpp"
#include "temp_dir.hpp"

using namespace parity::analyzer;
using Catch::Detail::Approx;
using small_trace::kMs;

namespace {

RankProfile small_profile(const TempDir& dir) {
  small_trace::write(dir / "small.db");
  return analyze_trace(load_trace(dir / "small.db"), Thresholds{});
}

const OpStat& find(const std::vector<OpStat>& stats, const std::string& name,
                   const std::string& phase = "") {
  for (const OpStat& s : stats)
    if (s.name == name && s.phase == phase) return s;
  FAIL("no stat " << name << " " << phase);
  throw;
}

const KernelStat& find_kernel(const std::vector<KernelStat>& stats, const std::string& name) {
  for (const KernelStat& s : stats)
    if (s.name == name) return s;
  FAIL("no kernel " << name);
  throw;
}

}  // namespace

TEST_CASE(
    "steps split into data wait, forward, backward, optimizer, exposed communication and other",
    "[unit]") {
  TempDir dir;
  const RankProfile profile = small_profile(dir);
  const StepAnalysis& steps = profile.steps;
  REQUIRE(steps.steps.size() == 4);
  CHECK(steps.warmup_steps == 1);
  CHECK(steps.step_time.count == 3);
  CHECK(steps.step_time.median_ns == 10 * kMs);
  CHECK(steps.step_time.cv == 0);
  const auto part = [&](StepPart p) { return steps.part(p).mean_ns; };
  CHECK(part(StepPart::kDataWait) == 1 * kMs);
  CHECK(part(StepPart::kForward) == 3 * kMs);
  CHECK(part(StepPart::kBackward) == 4 * kMs);
  CHECK(part(StepPart::kOptimizer) == 500'000);  // 1.5 ms less the 1 ms of allreduce under it
  CHECK(part(StepPart::kCommunication) == 1 * kMs);
  CHECK(part(StepPart::kOther) == 500'000);
  CHECK(steps.share(StepPart::kDataWait) == Approx(0.1));
  // The parts of every step add up to the step.
  for (const StepBreakdown& step : steps.steps) {
    std::int64_t sum = 0;
    for (const std::int64_t p : step.parts) sum += p;
    CHECK(sum == step.dur_ns);
  }
  CHECK(steps.steps[0].part(StepPart::kDataWait) == 2 * kMs);
  CHECK(steps.steps[0].dur_ns == 11 * kMs);
  // Gaps before steps 1, 2, 3: 1, 2, 2 ms.
  CHECK(steps.gap.mean_ns == Approx(5.0 / 3 * kMs));
  CHECK(steps.total_step_ns == 41 * kMs);
}

TEST_CASE("ops by type, layers by phase, kernels with launch and queue latency", "[unit]") {
  TempDir dir;
  const OpAnalysis ops = small_profile(dir).ops;
  // Steady steps 1-3 only: not the warm-up step, nor the reorders and their
  // kernels at start-up and between steps.
  REQUIRE(ops.ops.size() == 5);
  CHECK(ops.ops.front().name == "conv2d_backward");  // the heaviest first
  CHECK(ops.ops.front().time.total_ns == 3 * 2'800'000);
  CHECK(ops.ops.front().step_share == Approx(8.4 / 30));
  CHECK(find(ops.ops, "reorder").time.count == 3);
  CHECK(ops.conversion_ns == 3 * 50'000);
  CHECK(ops.conversion_share == Approx(0.15 / 30));
  REQUIRE(ops.layers.size() == 4);
  CHECK(ops.layers.front().name == "conv1");
  CHECK(ops.layers.front().phase == "backward");
  CHECK(find(ops.layers, "conv1", "forward").time.total_ns == 3 * 2 * kMs);
  CHECK(find(ops.layers, "fc", "backward").time.mean_ns == 1 * kMs);
  CHECK(find(ops.layers, "fc", "backward").self_ns == 3 * kMs);  // no layer nested in it
  CHECK(ops.kernel_count == 15);
  CHECK(ops.small_kernel_count == 0);
  REQUIRE(ops.kernels.front().name == "implicit_gemm_dgrad");
  CHECK(ops.kernels.front().time.total_ns == 3 * 1'400'000);
  CHECK(ops.kernels.front().launch.mean_ns == 5'000);
  CHECK(ops.kernels.front().queue.mean_ns == 20'000);
  CHECK(ops.kernels.front().device_share == Approx(4.2 / 9.375));
  CHECK(find_kernel(ops.kernels, "reorder_kernel").time.count == 3);
}

TEST_CASE("data queue: empty gets, wait share, rates and the input-bound class", "[unit]") {
  TempDir dir;
  const DataAnalysis data = small_profile(dir).data;
  REQUIRE(data.queues.size() == 1);
  const QueueStats& queue = data.queues.front();
  CHECK(queue.name == "train");
  // Samples in steps 1-3: gets at 23, 35, 47 ms, puts at 31 and 43 ms.
  CHECK(queue.gets == 3);
  CHECK(queue.puts == 2);
  CHECK(queue.empty_gets == 1);
  CHECK(queue.empty_ratio == Approx(1.0 / 3));
  CHECK(queue.capacity == 2);
  CHECK(queue.consumer_wait_share == Approx(1.01 / 30));
  CHECK(queue.consumer_rate == Approx(2 / 0.024));
  CHECK(queue.producer_rate == Approx(1 / 0.012));
  CHECK(data.input_bound_share == Approx(0.1));
  CHECK(data.input_bound == InputBound::kModerately);
  CHECK(data.share_source == "data_wait phase");
}

TEST_CASE("communication: bandwidths, overlap with kernels, exposed time", "[unit]") {
  TempDir dir;
  const CommAnalysis comm = small_profile(dir).comm;
  REQUIRE(comm.ops.size() == 1);
  const CollectiveStats& allreduce = comm.ops.front();
  CHECK(allreduce.op == "allreduce");  // not the broadcast at start-up
  CHECK(allreduce.time.count == 3);
  CHECK(allreduce.algorithm_gbps == Approx(4.0));  // 8 MB in 2 ms
  CHECK(allreduce.bus_gbps == Approx(6.0));        // x 2(n-1)/n with n = 4
  // No kernel runs during the allreduces: all of it is exposed on the device.
  CHECK(comm.compute_source == "device kernels");
  CHECK(comm.overlapped_ns == 0);
  CHECK(comm.exposed_ns == 6 * kMs);
  CHECK(comm.exposed_share == Approx(0.1));  // the host's view: the part past backward
  REQUIRE(comm.buckets.size() == 1);
  CHECK(comm.buckets.front().bytes == small_trace::kAllReduceBytes);
}

TEST_CASE("device idle time is attributed to data, communication and host", "[unit]") {
  TempDir dir;
  const RankProfile profile = small_profile(dir);
  REQUIRE(profile.idle.size() == 1);
  const IdleTrack& stream = profile.idle.front();
  CHECK(stream.track == "GPU 0 stream 7");
  // The steady steps' 30 ms, not the gaps between them: per step 3.125 ms of
  // kernels, 1 ms idle in the data wait, 2 ms under the allreduce.
  CHECK(stream.window_ns == 30 * kMs);
  CHECK(stream.busy_ns == 9'375'000);
  CHECK(stream.idle_ns == 20'625'000);
  CHECK(stream.idle_by_cause[static_cast<std::size_t>(IdleCause::kData)] == 3 * kMs);
  CHECK(stream.idle_by_cause[static_cast<std::size_t>(IdleCause::kCommunication)] == 6 * kMs);
  CHECK(stream.idle_by_cause[static_cast<std::size_t>(IdleCause::kHost)] == 11'625'000);
  REQUIRE(!stream.longest.empty());
  CHECK(stream.longest.front().dur_ns == 3'465'000);  // after backward's last kernel
  CHECK(stream.longest.front().dur_ns >= stream.longest.back().dur_ns);
}

TEST_CASE("the small trace's findings: data-bound, comm-tail and loss-scale overflow warnings",
          "[unit]") {
  TempDir dir;
  small_trace::write(dir / "small.db");
  ReportInputs inputs;
  inputs.traces = {dir / "small.db"};
  const ProfileReport report = build_profile_report(inputs);
  REQUIRE(report.findings.size() == 3);
  CHECK(report.findings[0].rule == "comm-tail");
  CHECK(report.findings[1].rule == "data-bound");
  CHECK(report.findings[2].rule == "loss-scale-overflow");
  for (const Finding& f : report.findings) {
    CHECK(f.severity == Severity::kWarning);
    CHECK(f.rank == 0);  // world size 4: findings name their rank
    CHECK(!f.next_step.empty());
    CHECK(!f.evidence.empty());
  }
  CHECK_FALSE(report.failed());  // warnings do not fail by default...
  ReportInputs strict = inputs;
  strict.fail_on = Severity::kWarning;
  CHECK(build_profile_report(strict).failed());  // ...but do with --fail-on warning
}
