// docs/rules.md gives, for every rule, the SQL that recomputes the evidence
// its findings print. These tests run the documented views and queries with
// sqlite3 on real traces (parity-train's CPU run, a synthetic GPU rank) and
// compare every evidence line of the report's findings with the same line
// built from the query's result, so the documentation and the analyzer
// cannot drift apart. Thresholds are set to 0 so that every rule speaks.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "parity/analyzer/profile/units.hpp"
#include "parity/analyzer/report_format.hpp"
#include "traced_run.hpp"

using nlohmann::json;
using parity::analyzer::format_bytes;
using parity::analyzer::format_duration;
using parity::analyzer::format_number;
using parity::analyzer::format_percent;
namespace fs = std::filesystem;

namespace {

std::string rules_doc() {
  std::ifstream in(fs::path(PARITY_DOCS_DIR) / "rules.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first ```sql block of the section under "## heading".
std::string documented_sql(const std::string& heading) {
  const std::string doc = rules_doc();
  const std::size_t begin = doc.find("\n## " + heading + "\n");
  INFO("docs/rules.md has a section ## " << heading);
  REQUIRE(begin != std::string::npos);
  const std::size_t end = doc.find("\n## ", begin + 1);
  const std::string section = doc.substr(begin, end - begin);
  const std::size_t open = section.find("```sql\n");
  INFO("its SQL block");
  REQUIRE(open != std::string::npos);
  const std::size_t close = section.find("```", open + 7);
  return section.substr(open + 7, close - open - 7);
}

// The documented views, then the rule's query, on `trace` (read-only): one
// array of rows per statement that returned any.
std::vector<json> run_documented_sql(const fs::path& trace, const std::string& rule) {
  TempDir dir;
  const fs::path script = dir / "query.sql";
  std::ofstream(script) << documented_sql("Reproducing the evidence in SQL")
                        << documented_sql(rule);
  const ProcessResult result = run_process(
      {PARITY_SQLITE3, "-readonly", "-json", trace.string(), ".read " + script.string()});
  INFO(rule << ": " << result.err);
  REQUIRE(result.exit_code == 0);
  REQUIRE(result.err.empty());
  std::vector<json> results;
  std::istringstream out(result.out);
  for (json rows; out >> std::ws && out.peek() != EOF;) {
    out >> rows;
    results.push_back(rows);
  }
  return results;
}

std::vector<const json*> findings(const json& report, const std::string& rule) {
  std::vector<const json*> found;
  for (const json& f : report["findings"])
    if (f["rule"] == rule) found.push_back(&f);
  return found;
}

const json& the_finding(const json& report, const std::string& rule) {
  const auto found = findings(report, rule);
  INFO("one " << rule << " finding");
  REQUIRE(found.size() == 1);
  return *found.front();
}

std::vector<std::string> evidence(const json& finding) {
  return finding["evidence"].get<std::vector<std::string>>();
}

double number(const json& value) { return value.is_null() ? 0 : value.get<double>(); }

// Every rule that reads steps, ops and queues on parity-train's CPU run.
json forced_report(const fs::path& trace, std::vector<std::string> extra) {
  for (const char* setting : {"conversion.info_share=0", "first_step.info_ratio=0",
                              "jitter.info_spread=0", "data_bound.warning_share=0"})
    extra.insert(extra.end(), {"--set", setting});
  return json_report({trace.string()}, extra);
}

}  // namespace

TEST_CASE("the documented SQL gives the evidence of the step, data and conversion rules", "[e2e]") {
  // One training run serves every section (Catch runs the case once for each).
  // One loader thread: its load_batch ops and queue puts run beside the steps.
  static const TempDir dir;
  static const fs::path trace = traced_run(dir, "run", 12, 1);
  const json report = forced_report(trace, {});

  SECTION("conversion-ops counts the reorders inside the steady steps only") {
    // The case this guards: parity-train reorders weights at start-up and in
    // the first step, outside the steady steps, and a trace of that holds more
    // reorders than the steady steps do.
    const ProcessResult all = run_process(
        {PARITY_SQLITE3, "-readonly", trace.string(),
         "SELECT COUNT(*) FROM range r JOIN string n ON n.id = r.name_id WHERE r.category = 4 "
         "AND n.text = 'reorder'"});
    REQUIRE(std::stoll(all.out) > 0);
    const std::vector<json> result = run_documented_sql(trace, "conversion-ops");
    const json rows = result.empty() ? json::array() : result[0];
    std::int64_t steady_reorders = 0;
    for (const json& row : rows)
      if (row["op"] == "reorder") steady_reorders = row["calls"].get<std::int64_t>();
    CHECK(std::stoll(all.out) > steady_reorders);

    const json& finding = the_finding(report, "conversion-ops");
    std::vector<std::string> expected;
    double share = 0;
    for (const json& row : rows) {
      share += row["share"].get<double>();
      if (expected.size() == 5) continue;
      const std::string op = row["op"];
      expected.push_back(op + ": " + std::to_string(row["calls"].get<std::int64_t>()) + " calls, " +
                         format_duration(row["total_ns"].get<double>()) + " (" +
                         format_percent(row["share"].get<double>()) + " of step time)");
      CHECK(finding["numbers"]["ops"][op]["count"] == row["calls"]);
      CHECK(finding["numbers"]["ops"][op]["total_ns"].get<double>() ==
            row["total_ns"].get<double>());
    }
    CHECK(evidence(finding) == expected);
    CHECK_THAT(finding["title"].get<std::string>(), Catch::Contains(format_percent(share)));
    CHECK(finding["numbers"]["conversion_share"].get<double>() == Approx(share));
  }

  SECTION("data-bound: the data wait per step and every queue line") {
    const std::vector<json> result = run_documented_sql(trace, "data-bound");
    REQUIRE(result.size() == 2);
    const json& wait = result[0][0];
    std::vector<std::string> expected{
        "data wait " + format_duration(wait["data_wait_per_step_ns"].get<double>()) +
        " per step of " + format_duration(wait["step_mean_ns"].get<double>()) +
        " (from the data_wait phase, steady state)"};
    REQUIRE(!result[1].empty());
    for (const json& queue : result[1])
      expected.push_back("queue '" + queue["queue"].get<std::string>() + "' empty on " +
                         format_percent(number(queue["empty_ratio"])) + " of gets; producers " +
                         format_number(number(queue["producer_per_s"])) + " batches/s, consumer " +
                         format_number(number(queue["consumer_per_s"])) + " batches/s");
    const json& finding = the_finding(report, "data-bound");
    CHECK(evidence(finding) == expected);
    CHECK_THAT(finding["title"].get<std::string>(),
               Catch::Contains(format_percent(wait["input_bound_share"].get<double>())));
  }

  SECTION("long-first-step: the first step, the median, the excess and the parts") {
    const std::vector<json> result = run_documented_sql(trace, "long-first-step");
    REQUIRE(result.size() == 1);
    const json& row = result[0][0];
    const double first = row["first_step_ns"].get<double>();
    const double median = row["median_ns"].get<double>();
    std::string parts;
    for (const char* part :
         {"data_wait", "forward", "backward", "optimizer", "communication", "other"})
      if (row[part].get<double>() > 0)
        parts += (parts.empty() ? "" : ", ") + std::string(part) + " " +
                 format_duration(row[part].get<double>());
    const std::vector<std::string> expected{
        "first step " + std::to_string(row["step"].get<std::int64_t>()) + ": " +
            format_duration(first) + "; median " + format_duration(median) + "; the excess " +
            format_duration(first - median) + " is " +
            format_percent(row["excess_share"].get<double>()) + " of all step time",
        "first step's parts: " + parts};
    CHECK(evidence(the_finding(report, "long-first-step")) == expected);
  }

  SECTION("step-jitter: median, p95, max, variation, the slowest steps, the varying part") {
    const std::vector<json> result = run_documented_sql(trace, "step-jitter");
    REQUIRE(result.size() == 1);
    const json& row = result[0][0];
    const std::vector<std::string> lines = evidence(the_finding(report, "step-jitter"));
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == "median " + format_duration(row["median_ns"].get<double>()) + ", p95 " +
                          format_duration(row["p95_ns"].get<double>()) + ", max " +
                          format_duration(row["max_ns"].get<double>()) +
                          ", coefficient of variation " + format_percent(row["cv"].get<double>()));
    // "slowest: step 7 (41.2 ms), step 3 (...)": the steps, in the query's order.
    std::string steps;
    const std::regex step_number(R"(step (\d+) \()");
    for (std::sregex_iterator it(lines[1].begin(), lines[1].end(), step_number), end; it != end;
         ++it)
      steps += (steps.empty() ? "" : ", ") + (*it)[1].str();
    CHECK(steps == row["slowest"].get<std::string>());
    CHECK(lines[2] == "most variable part: " + row["most_variable_part"].get<std::string>() +
                          " (standard deviation " +
                          format_duration(row["its_standard_deviation_ns"].get<double>()) + ")");
  }
}

TEST_CASE("the documented SQL gives the evidence of the communication and device rules", "[e2e]") {
  TempDir dir;
  // A synthetic GPU rank of a two-rank run: kernels, collectives, loss scale, memory.
  const ProcessResult synth =
      parity_cli({"synth", "--events", "60000", "--ranks", "2", "-o", (dir / "synth.db").string()});
  INFO(synth.err);
  REQUIRE(synth.exit_code == 0);
  const fs::path trace = dir / "synth.rank0.db";
  std::vector<std::string> settings;
  for (const char* setting : {"comm_tail.info_share=0", "launch_bound.small_share=0",
                              "launch_bound.host_idle_share=0", "memory.warning_share=0"})
    settings.insert(settings.end(), {"--set", setting});
  const json report = json_report({trace.string()}, settings);

  SECTION("comm-tail: exposed communication, overlap, the most exposed bucket") {
    const std::vector<json> result = run_documented_sql(trace, "comm-tail");
    REQUIRE(result.size() == 1);
    const json& row = result[0][0];
    REQUIRE(!row["bucket"].is_null());
    const std::string source = report["ranks"][0]["communication"]["compute_source"];
    const std::vector<std::string> expected{
        "communication " + format_duration(row["communication_per_step_ns"].get<double>()) +
            " per step not under compute; " +
            format_percent(row["overlapped_share"].get<double>()) +
            " of collective time overlapped " + source,
        "most exposed bucket: " + std::to_string(row["bucket"].get<std::int64_t>()) + " (" +
            format_bytes(row["bytes"].get<double>()) + ", " +
            format_duration(row["exposed_ns"].get<double>()) + " exposed in total)"};
    CHECK(evidence(the_finding(report, "comm-tail")) == expected);
  }

  SECTION("launch-bound: kernels per step, small kernels, the top kernel's latencies") {
    const std::vector<json> result = run_documented_sql(trace, "launch-bound");
    REQUIRE(result.size() == 1);
    const json& row = result[0][0];
    const std::vector<std::string> expected{
        format_number(row["kernels_per_step"].get<double>()) + " kernels per step, " +
            std::to_string(row["small"].get<std::int64_t>()) + " of " +
            std::to_string(row["kernels"].get<std::int64_t>()) + " small",
        "mean launch call " + format_duration(row["launch_mean_ns"].get<double>()) + " and queue " +
            format_duration(row["queue_mean_ns"].get<double>()) + " for " +
            row["top_kernel"].get<std::string>()};
    CHECK(evidence(the_finding(report, "launch-bound")) == expected);
  }

  SECTION("memory-capacity and loss-scale-overflow read the whole trace") {
    const json memory = run_documented_sql(trace, "memory-capacity")[0][0];
    CHECK(evidence(the_finding(report, "memory-capacity")) ==
          std::vector<std::string>{"peak " + format_bytes(memory["peak_bytes"].get<double>()) +
                                   " of " + format_bytes(memory["capacity_bytes"].get<double>())});
    const json scale = run_documented_sql(trace, "loss-scale-overflow")[0][0];
    const auto overflows = findings(report, "loss-scale-overflow");
    const bool skipped = scale["drops"].get<double>() > 0 || number(scale["skipped_steps"]) > 0;
    REQUIRE(overflows.size() == (skipped ? 1 : 0));
    if (skipped)
      CHECK(evidence(*overflows.front()).front() ==
            std::to_string(scale["loss_scale_samples"].get<std::int64_t>()) +
                " loss_scale samples");
  }
}
