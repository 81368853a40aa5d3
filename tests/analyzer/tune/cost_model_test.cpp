// The measured cost table (medians, interpolation, extrapolation, line fit),
// the ring and tree models, the presets and the cost model built on them.
#include "parity/analyzer/tune/cost_model.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "expect_error.hpp"
#include "parity/analyzer/tune/straddle_sample.hpp"

using namespace parity::analyzer;

TEST_CASE("the cost table keeps the median of each size and interpolates between sizes", "[unit]") {
  const CostTable table({{1'000, 20'000},
                         {1'000, 10'000},
                         {1'000, 90'000},  // a straggler's wait: the median ignores it
                         {3'000, 40'000},
                         {3'000, 40'000},
                         {5'000, 30'000}},  // piecewise: a protocol switch makes it cheaper
                        "test");
  REQUIRE(table.entries().size() == 3);
  CHECK(table.entries()[0].ns == 20'000);
  CHECK(table.entries()[0].samples == 3);
  CHECK(table.at(1'000) == 20'000);
  CHECK(table.at(2'000) == 30'000);
  CHECK(table.at(4'000) == 35'000);
  CHECK(table.at(5'000) == 30'000);
}

TEST_CASE("outside the measured sizes the cost follows the fitted line", "[unit]") {
  // Points on 10 us + 0.5 ns/B.
  const CostTable table({{10'000, 15'000}, {20'000, 20'000}, {40'000, 30'000}}, "test");
  CHECK(table.line().intercept_ns == Approx(10'000));
  CHECK(table.line().slope_ns_per_byte == Approx(0.5));
  CHECK(table.at(0) == Approx(10'000));
  CHECK(table.at(100'000) == Approx(60'000));
  // Off the line, the extrapolation starts from the nearest measured size.
  const CostTable bent({{10'000, 20'000}, {20'000, 20'000}, {30'000, 40'000}}, "test");
  const double slope = bent.line().slope_ns_per_byte;
  CHECK(slope == Approx(1.0));
  CHECK(bent.at(40'000) == Approx(40'000 + slope * 10'000));
  CHECK(bent.at(5'000) == Approx(20'000 - slope * 5'000));
  CHECK(bent.at(0) == Approx(10'000));  // still above the line's 6.67 us
  // A smallest size far below the line: the line, capped at that size's cost.
  const CostTable low({{10'000, 1'000}, {20'000, 30'000}, {30'000, 40'000}}, "test");
  const CostLine line = low.line();
  CHECK(line.intercept_ns == 0);
  CHECK(low.at(5'000) == 1'000);
  CHECK(low.at(500) == Approx(line.at(500)));
  CHECK(low.at(0) == 0);
}

TEST_CASE("the fitted line stays physical", "[unit]") {
  // Falling with size: a flat line at the mean.
  const CostTable falling({{1'000, 30'000}, {2'000, 10'000}}, "test");
  CHECK(falling.line().slope_ns_per_byte == 0);
  CHECK(falling.line().intercept_ns == Approx(20'000));
  // A negative intercept: the line through the origin.
  const CostTable steep({{1'000, 1'000}, {2'000, 3'000}}, "test");
  CHECK(steep.line().intercept_ns == 0);
  CHECK(steep.line().slope_ns_per_byte == Approx((1e6 + 6e6) / (1e6 + 4e6)));
}

TEST_CASE("one message size cannot give a cost table", "[unit]") {
  parity::test::expect_error(
      [] {
        CostTable({{1'000, 5}, {1'000, 6}}, "run.rank0.db");
      },
      "1 message size", {"run.rank0.db"});
}

TEST_CASE("the ring and tree models", "[unit]") {
  const LinkParams link{1'000, 0.01};
  // Ring at 4 ranks: 2*3 alpha + 2*3/4 n beta.
  CHECK(allreduce_time(AllreduceAlgorithm::kRing, link, 4, 1e6) == Approx(6'000 + 1.5 * 1e4));
  // Tree at 5 ranks: depth ceil(log2 5) = 3: 2*3 alpha + 2 n beta.
  CHECK(allreduce_time(AllreduceAlgorithm::kTree, link, 5, 1e6) == Approx(6'000 + 2e4));
  CHECK(allreduce_time(AllreduceAlgorithm::kTree, link, 8, 1e6) == Approx(6'000 + 2e4));
  CHECK(allreduce_time(AllreduceAlgorithm::kRing, link, 1, 1e6) == 0);
  // A line read as a ring at p gives back the line at p.
  const CostLine line{50'000, 0.1};
  const LinkParams fitted = link_from_ring_line(line, 2);
  CHECK(fitted.alpha_ns == Approx(25'000));
  CHECK(fitted.beta_ns_per_byte == Approx(0.1));
  CHECK(allreduce_time(AllreduceAlgorithm::kRing, link_from_ring_line(line, 8), 8, 3e6) ==
        Approx(line.at(3e6)));
}

TEST_CASE("the measured cost model is the table at the traced size and moves with the model",
          "[unit]") {
  const CostTable table({{1'000'000, 200'000}, {2'000'000, 260'000}, {4'000'000, 500'000}}, "test");
  const CostModel model = CostModel::measured(table, std::nullopt, 2);
  CHECK(model.link() == Link::kMeasured);
  CHECK_FALSE(model.busy_table());
  const AllreduceCost traced = model.at(AllreduceAlgorithm::kRing, 2);
  for (const double bytes : {5e5, 1e6, 1.5e6, 2e6, 3e6, 8e6}) {
    CHECK(traced.idle(bytes) == Approx(table.at(bytes)));
    CHECK(traced.busy(bytes) == Approx(table.at(bytes)));  // no busy table: idle stands in
  }
  const LinkParams link = model.params();
  const AllreduceCost at_64 = model.at(AllreduceAlgorithm::kRing, 64);
  CHECK(at_64.idle(2e6) ==
        Approx(260'000 + allreduce_time(AllreduceAlgorithm::kRing, link, 64, 2e6) -
               allreduce_time(AllreduceAlgorithm::kRing, link, 2, 2e6)));
  CHECK(model.at(AllreduceAlgorithm::kTree, 1).idle(2e6) == 0);
  CHECK(model.at(AllreduceAlgorithm::kTree, 1).busy(2e6) == 0);
}

TEST_CASE("a busy table prices AllReduces during backward, never below the idle cost", "[unit]") {
  const CostTable idle({{1'000, 10'000}, {1'000'000, 500'000}}, "idle");
  // Busy: a scheduling delay on small messages, and cheaper than idle above 1.5 MB (noise).
  const CostTable busy({{4'000, 4'000'000}, {2'000'000, 900'000}}, "busy");
  const CostModel model = CostModel::measured(idle, busy, 2);
  REQUIRE(model.busy_table());
  const AllreduceCost cost = model.at(AllreduceAlgorithm::kRing, 2);
  CHECK(cost.idle(1'000) == Approx(10'000));
  CHECK(cost.busy(4'000) == Approx(4'000'000));
  CHECK(cost.busy(2'000'000) == Approx(std::max(900'000.0, idle.at(2e6))));
  for (const double bytes : {256.0, 4e3, 1e5, 1e6, 2e6, 1e8})
    CHECK(cost.busy(bytes) >= cost.idle(bytes));
  // The link's alpha and beta come from the idle table.
  CHECK(model.params().beta_ns_per_byte ==
        Approx(link_from_ring_line(idle.line(), 2).beta_ns_per_byte));
}

TEST_CASE("a straddling AllReduce prices the busy cost by the schedule's own rule", "[unit]") {
  const CostTable idle({{1'000, 100'000}, {3'000, 300'000}}, "idle");  // 100 ns a byte
  // 2 kB: idle 200 us. 50 us after backward is a quarter of the work, so the
  // 150 us before it did three quarters: busy 200 us (no contention).
  const std::optional<AllreduceSample> even = busy_cost_of({2'000, 150'000, 50'000}, idle);
  REQUIRE(even);
  CHECK(even->bytes == 2'000);
  CHECK(even->ns == Approx(200'000));
  // Half the work after backward, 300 us before it: busy at half the idle rate.
  CHECK(busy_cost_of({2'000, 300'000, 100'000}, idle)->ns == Approx(600'000));
  // The inverse of the schedule: the straddler ends where allreduce_end says.
  const double busy = busy_cost_of({2'000, 300'000, 100'000}, idle)->ns;
  CHECK(allreduce_end(0, busy, idle.at(2'000), 300'000) == Approx(400'000));
  // A remainder as long as a whole idle AllReduce: nothing done beside backward.
  CHECK_FALSE(busy_cost_of({2'000, 300'000, 190'000}, idle));
  CHECK_FALSE(busy_cost_of({2'000, 300'000, 250'000}, idle));
  // Less than a quarter during backward: too uncertain to price.
  CHECK_FALSE(busy_cost_of({2'000, 30'000, 160'000}, idle));
  CHECK(busy_cost_of({2'000, 30'000, 140'000}, idle)->ns == Approx(100'000));
}

TEST_CASE("an AllReduce that outlives backward finishes at the idle rate", "[unit]") {
  // Busy 10, idle 4, backward ends at 100.
  CHECK(allreduce_end(50, 10, 4, 100) == 60);    // all during backward
  CHECK(allreduce_end(100, 10, 4, 100) == 104);  // all after
  CHECK(allreduce_end(120, 10, 4, 100) == 124);
  CHECK(allreduce_end(95, 10, 4, 100) == Approx(102));  // half done by 100, the other half idle
  // Never earlier for a later start (the split optimiser's exactness needs it).
  double previous = -1;
  for (double start = 80; start <= 110; start += 0.25) {
    const double end = allreduce_end(start, 10, 4, 100);
    CHECK(end >= previous);
    previous = end;
  }
}

TEST_CASE("the preset links", "[unit]") {
  CHECK(parse_link("nvlink") == Link::kNvlink);
  CHECK(parse_link("ib") == Link::kInfiniband);
  CHECK(parse_link("ethernet") == Link::kEthernet);
  CHECK(parse_link("measured") == Link::kMeasured);
  CHECK(link_name(Link::kInfiniband) == "ib");
  CHECK(preset_link(Link::kNvlink).beta_ns_per_byte <
        preset_link(Link::kInfiniband).beta_ns_per_byte);
  CHECK(preset_link(Link::kInfiniband).beta_ns_per_byte <
        preset_link(Link::kEthernet).beta_ns_per_byte);
  const CostModel model = CostModel::preset(Link::kEthernet);
  CHECK_FALSE(model.table());
  const AllreduceCost ethernet = model.at(AllreduceAlgorithm::kRing, 16);
  CHECK(ethernet.idle(1e6) ==
        Approx(allreduce_time(AllreduceAlgorithm::kRing, preset_link(Link::kEthernet), 16, 1e6)));
  CHECK(ethernet.busy(1e6) == ethernet.idle(1e6));
  parity::test::expect_error([] { parse_link("infiniband"); }, "unknown link 'infiniband'",
                             {"--link"});
}
