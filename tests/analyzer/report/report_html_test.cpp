// The HTML profile report: a self-contained page with one chart per section
// that has something to draw, escaped text, finite numbers in every SVG
// attribute, SVG that parses as XML, and a bounded size for a long run.
// Reports are built by hand, so each case controls exactly what is drawn.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "parity/analyzer/profile/profile_report.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

using namespace parity::analyzer;

namespace {

constexpr double kMs = 1e6;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The chart limits of analyzer/trace/src/profile/svg_charts.hpp (an internal header).
constexpr std::size_t kMaxStepBars = 600;
constexpr std::size_t kMaxCommBars = 40;

Distribution distribution(double median_ns, std::int64_t count) {
  Distribution d;
  d.count = count;
  d.mean_ns = d.median_ns = d.min_ns = median_ns;
  d.p95_ns = d.max_ns = 1.1 * median_ns;
  d.total_ns = median_ns * static_cast<double>(count);
  return d;
}

// `count` steps of about `step_ms`, the first a slow warm-up step.
StepAnalysis steps_of(std::size_t count, double step_ms) {
  StepAnalysis steps;
  steps.warmup_steps = 1;
  std::int64_t start = 0;
  for (std::size_t i = 0; i < count; ++i) {
    StepBreakdown step;
    step.step = static_cast<std::int64_t>(i);
    step.start_ns = start;
    const double scale = step_ms / 10 * (i == 0 ? 3 : 1 + 0.01 * static_cast<double>(i % 7));
    const std::array<double, kStepParts> ms = {1, 2.5, 4.5, 1, 0.6, 0.4};  // 10 ms in all
    for (std::size_t p = 0; p < kStepParts; ++p)
      step.parts[p] = static_cast<std::int64_t>(ms[p] * scale * kMs);
    for (const std::int64_t part : step.parts) step.dur_ns += part;
    start += step.dur_ns;
    steps.total_step_ns += step.dur_ns;
    steps.steps.push_back(step);
  }
  const auto steady = static_cast<std::int64_t>(count) - 1;
  steps.step_time = distribution(step_ms * kMs, steady);
  for (std::size_t p = 0; p < kStepParts; ++p)
    steps.parts[p] = distribution(step_ms * kMs / kStepParts, steady);
  return steps;
}

OpStat op(std::string name, double total_ms, std::int64_t calls) {
  OpStat stat;
  stat.name = std::move(name);
  stat.time = distribution(total_ms * kMs / static_cast<double>(calls), calls);
  stat.step_share = total_ms / 200;
  return stat;
}

QueueStats loader_queue() {
  QueueStats queue;
  queue.name = "loader";
  queue.capacity = 4;
  queue.gets = queue.puts = 50;
  queue.mean_depth = 1.5;
  for (std::int64_t i = 0; i < 50; ++i)
    queue.depth_series.push_back({i * 4'000'000, static_cast<std::uint32_t>(i % 5)});
  return queue;
}

CollectiveStats allreduce() {
  CollectiveStats collective;
  collective.op = "allreduce";
  collective.bytes = 25'000'000;
  collective.time = distribution(3 * kMs, 20);
  collective.overlapped_ns = 40'000'000;
  collective.exposed_ns = 20'000'000;
  return collective;
}

RankProfile rank_profile(std::int64_t rank, std::size_t steps, double step_ms) {
  RankProfile profile;
  profile.path = "rank" + std::to_string(rank) + ".db";
  profile.rank = rank;
  profile.world_size = 2;
  profile.complete = true;
  profile.steps = steps_of(steps, step_ms);
  profile.ops.ops = {op("conv2d", 120, 530), op("<script>&", 40, 20), op("batch_norm", 15, 530)};
  profile.data.share_source = "data_wait phase";
  profile.data.queues = {loader_queue()};
  profile.comm.ops = {allreduce()};
  profile.comm.compute_source = "host forward/backward";
  return profile;
}

Finding finding(Severity severity, std::string rule, std::string title) {
  Finding f;
  f.rule = std::move(rule);
  f.severity = severity;
  f.rank = 1;
  f.title = std::move(title);
  f.evidence = {"median step 11.0 ms"};
  f.next_step = "look at rank 1";
  return f;
}

RankRow rank_row(const RankProfile& profile, double vs_median, bool straggler) {
  RankRow row;
  row.rank = profile.rank;
  row.path = profile.path;
  row.steps = static_cast<std::int64_t>(profile.steps.steps.size());
  row.step_time = profile.steps.step_time;
  row.work_ns = 0.9 * row.step_time.median_ns;
  row.vs_median = vs_median;
  row.straggler = straggler;
  return row;
}

// Two ranks, rank 1 a straggler, with every section that has a chart.
ProfileReport two_rank_report(std::size_t steps = 40) {
  ProfileReport report;
  report.ranks = {rank_profile(0, steps, 10), rank_profile(1, steps, 12)};
  report.rank_comparison.rows = {rank_row(report.ranks[0], -0.09, false),
                                 rank_row(report.ranks[1], 0.09, true)};
  report.rank_comparison.median_step_ns = 11 * kMs;
  report.rank_comparison.median_work_ns = 0.9 * 11 * kMs;
  report.findings = {finding(Severity::kError, "straggler", "rank 1 is 9% slower"),
                     finding(Severity::kWarning, "long_tail", "<b>exposed</b> allreduce"),
                     finding(Severity::kInfo, "first_step", "the first step is slow")};
  return report;
}

std::string html_of(const ProfileReport& report) {
  std::ostringstream out;
  write_profile_report(report, "html", out);
  return out.str();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

// From the section's heading to the next section's.
std::string section(const std::string& html, const std::string& id) {
  const std::size_t begin = html.find("<h2 id=\"" + id + "\">");
  if (begin == std::string::npos) return {};
  const std::size_t end = html.find("<h2", begin + 1);
  return html.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::vector<std::string> svg_fragments(const std::string& html) {
  std::vector<std::string> fragments;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at)) {
    const std::size_t end = html.find("</svg>", at);
    REQUIRE(end != std::string::npos);
    fragments.push_back(html.substr(at, end + 6 - at));
    at = end;
  }
  return fragments;
}

// Every geometric attribute holds plain numbers, and no attribute of any
// SVG element says nan or inf.
void check_svg_attributes(const std::string& svg) {
  static const std::regex geometry(
      R"re(\s(x|y|x1|y1|x2|y2|width|height|points|viewBox)="([^"]*)")re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), geometry), end; it != end; ++it) {
    INFO((*it)[0].str());
    CHECK(std::regex_match((*it)[2].str(), std::regex(R"(-?[0-9.]+([ ,]-?[0-9.]+)*)")));
  }
  static const std::regex attribute(R"re(="([^"]*)")re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), attribute), end; it != end; ++it) {
    std::string value = (*it)[1].str();
    for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    INFO(value);
    CHECK(value.find("nan") == std::string::npos);
    CHECK(value.find("inf") == std::string::npos);
  }
}

// Runs a Python script over files holding `texts`; it passes by exiting 0.
void check_with_python(const std::string& script, const std::vector<std::string>& texts) {
  TempDir dir;
  std::vector<std::string> argv{PARITY_PYTHON, "-c", script};
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto path = dir / ("text" + std::to_string(i));
    std::ofstream(path) << texts[i];
    argv.push_back(path.string());
  }
  const ProcessResult result = run_process(argv);
  INFO(result.err);
  CHECK(result.exit_code == 0);
}

// Each <svg> element parses as XML on its own (Python's xml.etree).
void check_svg_is_xml(const std::vector<std::string>& fragments) {
  check_with_python(
      "import sys, xml.etree.ElementTree as ET\n"
      "for path in sys.argv[1:]: ET.parse(path)\n",
      fragments);
}

// Every element of the page is closed, in order (Python's html.parser).
void check_page_is_balanced(const std::string& html) {
  check_with_python(
      "import sys\n"
      "from html.parser import HTMLParser\n"
      "class Page(HTMLParser):\n"
      "    open = []\n"
      "    def handle_starttag(self, tag, attrs):\n"
      "        if tag != 'meta': self.open.append(tag)\n"
      "    def handle_endtag(self, tag):\n"
      "        if not self.open or self.open.pop() != tag: sys.exit('unbalanced </' + tag + '>')\n"
      "page = Page()\n"
      "page.feed(open(sys.argv[1]).read())\n"
      "if page.open: sys.exit('not closed: ' + ' '.join(page.open))\n",
      {html});
}

}  // namespace

TEST_CASE("the HTML report is one self-contained page with a chart per section", "[unit]") {
  const std::string html = html_of(two_rank_report());
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(html.find("<meta charset=\"utf-8\">") != std::string::npos);
  CHECK(html.find("<title>Parity profile report</title>") != std::string::npos);
  CHECK(html.find("<style>") != std::string::npos);
  // Nothing fetched: the SVG namespace is a name, not a resource.
  std::string page = html;
  for (std::size_t at; (at = page.find("http://www.w3.org/2000/svg")) != std::string::npos;)
    page.erase(at, 26);
  for (const char* external : {"<script", "<link", "src=", "http://", "https://"}) {
    INFO(external);
    CHECK(page.find(external) == std::string::npos);
  }

  for (const char* id : {"steps", "ops", "data", "communication", "ranks"}) {
    INFO(id);
    CHECK(occurrences(section(html, id), "<svg") == 1);
  }
  CHECK(occurrences(html, "<svg") == 5);
  // Stacked step bars with a legend naming every part.
  for (const StepPart part : kAllStepParts)
    CHECK(section(html, "steps").find(">" + std::string(step_part_name(part)) + "</text>") !=
          std::string::npos);

  const std::vector<std::string> fragments = svg_fragments(html);
  for (const std::string& svg : fragments) check_svg_attributes(svg);
  check_svg_is_xml(fragments);
  check_page_is_balanced(html);

  // Optional: PARITY_REPORT_HTML_EXAMPLE=path keeps this page to look at.
  if (const char* example = std::getenv("PARITY_REPORT_HTML_EXAMPLE"))
    std::ofstream(example) << html;
}

TEST_CASE("the HTML report styles the verdict and each finding by severity", "[unit]") {
  const std::string html = html_of(two_rank_report());
  CHECK(html.find("<p class=\"verdict fail\">FAIL: 1 errors") != std::string::npos);
  const std::string findings = section(html, "findings");
  CHECK(occurrences(findings, "<div class=\"finding error\">") == 1);
  CHECK(occurrences(findings, "<div class=\"finding warning\">") == 1);
  CHECK(occurrences(findings, "<div class=\"finding info\">") == 1);
  CHECK(findings.find("<code>straggler</code> (rank 1): rank 1 is 9% slower") != std::string::npos);
  CHECK(findings.find("<li>median step 11.0 ms</li>") != std::string::npos);
  // Drawn from the findings, not repeated from the text rendering.
  CHECK(findings.find("[error]") == std::string::npos);

  ProfileReport passing = two_rank_report();
  passing.findings.clear();
  const std::string clean = html_of(passing);
  CHECK(clean.find("<p class=\"verdict pass\">PASS: ") != std::string::npos);
  CHECK(section(clean, "findings").find("No rule found anything to report.") != std::string::npos);
}

TEST_CASE("the HTML report escapes names and right-aligns numeric columns", "[unit]") {
  const std::string html = html_of(two_rank_report());
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(section(html, "ops").find("<td>&lt;script&gt;&amp;</td>") != std::string::npos);
  CHECK(section(html, "ops").find(">&lt;script&gt;&amp;</text>") != std::string::npos);
  CHECK(section(html, "findings").find("&lt;b&gt;exposed&lt;/b&gt;") != std::string::npos);
  CHECK(section(html, "ops").find("<th class=\"num\">calls</th>") != std::string::npos);
  CHECK(section(html, "ops").find("<td>conv2d</td><td class=\"num\">530</td>") !=
        std::string::npos);
  CHECK(html.find("<nav><a href=\"#findings\">Findings</a>") != std::string::npos);
}

TEST_CASE("the HTML report draws no chart for a section without data", "[unit]") {
  ProfileReport report;
  report.ranks = {rank_profile(0, 10, 10)};
  report.ranks[0].comm = {};
  report.ranks[0].data.queues.clear();
  report.rank_comparison.rows = {rank_row(report.ranks[0], 0, false)};
  report.rank_comparison.median_step_ns = 10 * kMs;
  const std::string html = html_of(report);
  CHECK(occurrences(html, "<svg") == 2);
  CHECK(occurrences(section(html, "steps"), "<svg") == 1);
  CHECK(occurrences(section(html, "ops"), "<svg") == 1);
  CHECK(occurrences(section(html, "data"), "<svg") == 0);
  CHECK(html.find("id=\"communication\"") == std::string::npos);
  CHECK(html.find("id=\"ranks\"") == std::string::npos);

  // A queue with no depth samples has nothing to plot either.
  report.ranks[0].data.queues = {loader_queue()};
  report.ranks[0].data.queues[0].depth_series.clear();
  CHECK(occurrences(section(html_of(report), "data"), "<svg") == 0);
}

TEST_CASE("the HTML report's charts stay finite for zero, one-step and NaN data", "[unit]") {
  ProfileReport report = two_rank_report(1);
  for (RankProfile& rank : report.ranks) {
    rank.steps.steps[0].parts.fill(0);
    rank.steps.steps[0].dur_ns = 0;
    rank.steps.step_time.median_ns = kNaN;
    rank.ops.ops[0].time.total_ns = kNaN;
    rank.ops.ops[1].time.total_ns = 0;
    rank.ops.ops[2].step_share = std::numeric_limits<double>::infinity();
    rank.ops.ops[2].time.total_ns = std::numeric_limits<double>::max();
    rank.data.queues[0].capacity = 0;
    rank.data.queues[0].depth_series.resize(1);
    rank.data.queues.push_back(loader_queue());
    rank.data.queues[1].depth_series.clear();
    rank.comm.ops[0].overlapped_ns = rank.comm.ops[0].exposed_ns = 0;
  }
  report.rank_comparison.median_step_ns = kNaN;
  report.rank_comparison.median_work_ns = kNaN;
  report.rank_comparison.rows[1].work_ns = kNaN;
  report.rank_comparison.rows[0].step_time.median_ns = 0;
  report.rank_comparison.rows[1].step_time.median_ns = kNaN;
  const std::string html = html_of(report);
  const std::vector<std::string> fragments = svg_fragments(html);
  CHECK(fragments.size() == 5);
  for (const std::string& svg : fragments) check_svg_attributes(svg);
  check_svg_is_xml(fragments);
}

TEST_CASE("the HTML report of a 10,000-step run averages neighbouring steps into bars", "[unit]") {
  ProfileReport report = two_rank_report(10'000);
  report.ranks[1].comm.buckets.resize(100);
  for (std::size_t b = 0; b < 100; ++b) {
    BucketStats& bucket = report.ranks[1].comm.buckets[b];
    bucket.bucket = static_cast<std::int64_t>(b);
    bucket.bytes = 1'000'000;
    bucket.time = distribution(0.5 * kMs, 10'000);
    bucket.exposed_ns = 1'000'000'000;
  }
  const std::string html = html_of(report);
  CHECK(html.size() < 2'000'000);
  const std::string steps = section(html, "steps");
  const std::size_t bars = occurrences(steps, "<g>");
  CHECK(bars > kMaxStepBars / 2);
  CHECK(bars <= kMaxStepBars);
  // Each bar stacks at most one rect a part; the legend and warm-up band add a few.
  CHECK(occurrences(steps, "<rect") <= kMaxStepBars * kStepParts + kStepParts + 1);
  CHECK(steps.find("steps 0-16 (mean of 17)") != std::string::npos);
  // A hundred buckets: the first are drawn, the rest share a bar, their mean.
  const std::string comm = section(html, "communication");
  CHECK(occurrences(comm, "<g>") == kMaxCommBars);
  CHECK(comm.find(">61 more (mean)</text>") != std::string::npos);
  CHECK(comm.find("bucket 39 (1.00 MB) to bucket 99 (1.00 MB): in all exposed 61.00 s") !=
        std::string::npos);
  check_svg_is_xml(svg_fragments(html));
}
