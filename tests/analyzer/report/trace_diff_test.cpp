// `parity diff-trace`'s renderings, on runs built by hand: the headline names
// every failed check (worst first, with values and the limit) and says what
// passed only when everything did; every format of `parity report` renders.
#include "parity/analyzer/profile/trace_diff.hpp"

#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

#include "parity/analyzer/profile/profile_report.hpp"

using namespace parity::analyzer;

namespace {

constexpr double kMs = 1e6;

// A run of 20 steady steps (after one warm-up) with the given median step and
// mean data wait, and one op.
RankProfile run(const std::string& path, double median_step_ms, double data_wait_ms,
                double conv_ms_per_step) {
  RankProfile profile;
  profile.path = path;
  profile.steps.steps.resize(21);
  profile.steps.warmup_steps = 1;
  profile.steps.step_time.count = 20;
  profile.steps.step_time.median_ns = median_step_ms * kMs;
  profile.steps.step_time.mean_ns = (median_step_ms + data_wait_ms) * kMs;
  profile.steps.parts[static_cast<std::size_t>(StepPart::kDataWait)].mean_ns = data_wait_ms * kMs;
  profile.steps.parts[static_cast<std::size_t>(StepPart::kForward)].mean_ns = 4 * kMs;
  OpStat conv;
  conv.name = "conv2d";
  conv.time.count = 20;
  conv.time.total_ns = 20 * conv_ms_per_step * kMs;
  profile.ops.ops = {conv};
  return profile;
}

std::string rendered(const TraceDiff& diff, const std::string& format) {
  std::ostringstream out;
  write_trace_diff(diff, format, out, 20);
  return out.str();
}

std::string headline(const TraceDiff& diff) {
  const std::string text = rendered(diff, "text");
  const std::regex line(R"(\n  ((REGRESSED|OK)[^\n]*))");
  std::smatch match;
  REQUIRE(std::regex_search(text, match, line));
  return match[1].str();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

}  // namespace

TEST_CASE("diff-trace's headline names the failed checks, worst first, with values and limits",
          "[unit]") {
  // The median step barely moves (+1%), but a few long data waits add 5.7 ms
  // to the mean data wait (+57% of A's step) and the op grows by 0.8 ms (+8%).
  const TraceDiff diff = diff_traces(run("a.db", 10, 0.3, 3), run("b.db", 10.1, 6.0, 3.8), 5);
  REQUIRE(diff.regression.regressed());
  const std::string line = headline(diff);
  INFO(line);
  CHECK(line.starts_with("REGRESSED (2 of "));
  CHECK_THAT(line, Catch::Contains("each may grow by +5% of A's median step"));
  const std::size_t data_wait = line.find("data_wait per step +57.00% (300 us -> 6.00 ms)");
  const std::size_t op = line.find("op conv2d per step +8.00% (3.00 ms -> 3.80 ms)");
  CHECK(data_wait != std::string::npos);
  CHECK(op != std::string::npos);
  CHECK(data_wait < op);  // worst first
  // What passed is not the headline when something failed.
  CHECK_THAT(line, !Catch::Contains("median step is"));
  CHECK_THAT(line, !Catch::Contains("step time"));
}

TEST_CASE("diff-trace's headline says what passed only when every check passed", "[unit]") {
  const TraceDiff diff = diff_traces(run("a.db", 10, 0.3, 3), run("b.db", 10.115, 0.3, 3), 5);
  REQUIRE_FALSE(diff.regression.regressed());
  CHECK(headline(diff) == "OK: all " + std::to_string(diff.regression.checks.size()) +
                              " checks within +5% of A's median step; B's median step is +1.15% "
                              "of A's");
}

TEST_CASE("diff-trace renders every format of parity report", "[unit]") {
  CHECK(trace_diff_formats() == profile_report_formats());
  const TraceDiff diff = diff_traces(run("a.db", 10, 0.3, 3), run("b.db", 10.1, 6.0, 3.8), 5);
  const std::size_t checks = diff.regression.checks.size();

  const std::string junit = rendered(diff, "junit");
  CHECK(junit.starts_with("<?xml"));
  CHECK(occurrences(junit, "<testcase ") == checks);
  CHECK(occurrences(junit, "<failure ") == 2);
  CHECK_THAT(junit, Catch::Contains("<failure message=\"data_wait per step slower by +57.00% of "
                                    "A's median step (300 us -&gt; 6.00 ms; allowed +5.00%)\"/>"));
  CHECK_THAT(junit, Catch::Contains("name=\"step time\"/>"));

  const std::string html = rendered(diff, "html");
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("<title>Parity trace diff</title>"));
  CHECK_THAT(html, Catch::Contains("<p class=\"verdict fail\">REGRESSED (2 of "));
  CHECK_THAT(html, Catch::Contains("<h2 id=\"checks\">"));

  const std::string markdown = rendered(diff, "md");
  CHECK_THAT(markdown, Catch::Contains("| op | calls/step A |"));
  CHECK_THAT(markdown, Catch::Contains("| data_wait per step |"));
  CHECK(nlohmann::json::parse(rendered(diff, "json"))["regression"]["regressed"] == true);
  CHECK_THROWS_WITH(rendered(diff, "pdf"), Catch::Contains("unknown report format 'pdf'"));
}
