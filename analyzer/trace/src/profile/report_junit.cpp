// The JUnit test cases of a profile report: one per rule (failing when the
// rule made a finding at or above the report's fail-on severity) and one per
// regression check, so a CI system lists exactly what failed.
#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/report_format.hpp"

namespace parity::analyzer {

JunitSuite junit_suite(const ProfileReport& report) {
  JunitSuite suite;
  suite.name = "parity report";
  std::string traces;
  for (const RankProfile& rank : report.ranks) traces += (traces.empty() ? "" : ", ") + rank.path;
  suite.properties = {{"traces", traces}, {"fail_on", std::string(severity_name(report.fail_on))}};
  for (const RuleInfo& rule : rules_table()) {
    JunitCase test{"parity.rules", std::string(rule.id), std::nullopt, std::nullopt};
    std::string failures;
    for (const Finding& f : report.findings) {
      if (f.rule != rule.id || f.severity < report.fail_on) continue;
      failures += (failures.empty() ? "" : "\n") + std::string("[") +
                  std::string(severity_name(f.severity)) + "] " +
                  (f.rank ? "rank " + std::to_string(*f.rank) + ": " : "") + f.title +
                  "; next: " + f.next_step;
    }
    if (!failures.empty()) test.failure = failures;
    suite.cases.push_back(std::move(test));
  }
  if (report.baseline)
    for (JunitCase& test : junit_cases(*report.baseline, "parity.baseline", "the baseline"))
      suite.cases.push_back(std::move(test));
  return suite;
}

}  // namespace parity::analyzer
