// ProfileReport: what `parity report` computes from one run's traces (one per
// rank) and an optional baseline run, and its renderings: text for a
// terminal, Markdown for a CI step summary, self-contained HTML with SVG
// charts, versioned JSON, and JUnit XML with one test case per rule and per
// regression check.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "parity/analyzer/profile/baseline.hpp"
#include "parity/analyzer/profile/findings.hpp"
#include "parity/analyzer/profile/rank_profile.hpp"
#include "parity/analyzer/profile/thresholds.hpp"
#include "parity/analyzer/report/report.hpp"

namespace parity::analyzer {

struct ProfileReport {
  static constexpr int kVersion = 1;  // of the JSON rendering; bump on any incompatible change
  std::vector<RankProfile> ranks;     // by rank
  RankComparison rank_comparison;
  std::vector<Finding> findings;
  std::optional<BaselineComparison> baseline;
  Thresholds thresholds;
  Severity fail_on = Severity::kError;

  // Checks found problems: a finding at or above fail_on, or a regression.
  bool failed() const;
  // The rank the detailed sections show: the one with the most work per step
  // (every rank waits for it; see RankComparison).
  const RankProfile& focus_rank() const;
};

struct ReportInputs {
  std::vector<std::filesystem::path> traces;    // one run, one per rank
  std::vector<std::filesystem::path> baseline;  // another run; empty: no comparison
  Thresholds thresholds;
  Severity fail_on = Severity::kError;
  std::function<void(double)> progress;  // fraction of traces loaded and analyzed
};

// Loads and analyzes every trace; throws parity::Error naming the file for
// one that cannot be read or holds no steps.
ProfileReport build_profile_report(const ReportInputs& inputs);
// Called with each trace's index in the input, its data and its profile,
// while the data is loaded: for analyses beyond the profile's.
using TraceVisitor =
    std::function<void(std::size_t input, const TraceData& trace, const RankProfile& profile)>;
// The analysis of one run's traces (several in parallel), by rank.
std::vector<RankProfile> analyze_traces(const std::vector<std::filesystem::path>& traces,
                                        const Thresholds& thresholds,
                                        const std::function<void(double)>& progress = {},
                                        const TraceVisitor& also = {});

nlohmann::json to_json(const ProfileReport& report);
// The HTML page's charts and styled findings; the JUnit test cases.
HtmlInserts report_inserts(const ProfileReport& report);
JunitSuite junit_suite(const ProfileReport& report);
// Every rendering: the Document (report_document.hpp), the inserts, the
// JSON and the JUnit suite.
Report to_report(const ProfileReport& report);

// The formats it renders in (text, md, html, json, junit).
const std::vector<std::string>& profile_report_formats();
// Throws parity::Error for a format that is not one of profile_report_formats().
void write_profile_report(const ProfileReport& report, const std::string& format,
                          std::ostream& out);

}  // namespace parity::analyzer
