#include "parity/analyzer/profile/profile_report.hpp"

#include <algorithm>

#include "parity/analyzer/parallel_for.hpp"
#include "parity/analyzer/profile/report_document.hpp"
#include "parity/analyzer/report/report_formats.hpp"

namespace parity::analyzer {

bool ProfileReport::failed() const {
  if (baseline && baseline->regressed()) return true;
  return std::any_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return f.severity >= fail_on; });
}

const RankProfile& ProfileReport::focus_rank() const {
  const auto& rows = rank_comparison.rows;
  const auto slowest =
      std::max_element(rows.begin(), rows.end(),
                       [](const RankRow& a, const RankRow& b) { return a.work_ns < b.work_ns; });
  for (const RankProfile& rank : ranks)
    if (slowest != rows.end() && rank.rank == slowest->rank) return rank;
  return ranks.front();
}

std::vector<RankProfile> analyze_traces(const std::vector<std::filesystem::path>& traces,
                                        const Thresholds& thresholds,
                                        const std::function<void(double)>& progress,
                                        const TraceVisitor& also) {
  std::vector<RankProfile> profiles(traces.size());
  ParallelOptions options;
  // Loading already reads two tables at a time; two traces at once fill the rest.
  options.threads = 2;
  options.progress = [&](std::size_t done, std::size_t total) {
    if (progress) progress(static_cast<double>(done) / static_cast<double>(total));
  };
  parallel_for(traces.size(), options, [&](std::size_t i) {
    const TraceData trace = load_trace(traces[i]);
    profiles[i] = analyze_trace(trace, thresholds);
    if (also) also(i, trace, profiles[i]);
  });
  std::sort(profiles.begin(), profiles.end(),
            [](const RankProfile& a, const RankProfile& b) { return a.rank < b.rank; });
  return profiles;
}

ProfileReport build_profile_report(const ReportInputs& inputs) {
  ProfileReport report;
  report.thresholds = inputs.thresholds;
  report.fail_on = inputs.fail_on;
  const double runs = inputs.baseline.empty() ? 1.0 : 2.0;
  report.ranks = analyze_traces(inputs.traces, inputs.thresholds, [&](double fraction) {
    if (inputs.progress) inputs.progress(fraction / runs);
  });
  report.rank_comparison = compare_ranks(report.ranks, inputs.thresholds);
  report.findings = evaluate_rules(report.ranks, report.rank_comparison, inputs.thresholds);
  if (!inputs.baseline.empty()) {
    const auto baseline = analyze_traces(inputs.baseline, inputs.thresholds, [&](double fraction) {
      if (inputs.progress) inputs.progress((1 + fraction) / runs);
    });
    compare_ranks(baseline, inputs.thresholds);  // refuses a baseline with a rank twice
    report.baseline =
        compare_to_baseline(report.ranks, baseline, inputs.thresholds.max_regression_pct);
  }
  return report;
}

Report to_report(const ProfileReport& report) {
  Report rendered;
  rendered.document = report_document(report);
  rendered.html = report_inserts(report);
  rendered.data = to_json(report);
  rendered.checks = junit_suite(report);
  return rendered;
}

const std::vector<std::string>& profile_report_formats() {
  static const std::vector<std::string> formats =
      format_names({ReportPart::kDocument, ReportPart::kData, ReportPart::kChecks});
  return formats;
}

void write_profile_report(const ProfileReport& report, const std::string& format,
                          std::ostream& out) {
  render_report(to_report(report), format, profile_report_formats(), out);
}

}  // namespace parity::analyzer
