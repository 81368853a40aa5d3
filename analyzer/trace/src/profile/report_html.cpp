// What the HTML page of a profile report adds to its Document (document.hpp):
// two parts drawn from the report itself rather than from the Document's
// plain text: the findings, so each carries its severity's colour, and the
// charts, placed after the heading whose id names their section.
#include <string>

#include "parity/analyzer/profile/profile_report.hpp"
#include "parity/analyzer/profile/report_document.hpp"
#include "parity/analyzer/report_format.hpp"
#include "svg_charts.hpp"

namespace parity::analyzer {
namespace {

std::string finding_html(const Finding& finding) {
  const std::string severity(severity_name(finding.severity));
  std::string out = "<div class=\"finding " + severity + "\">\n<p><span class=\"severity\">" +
                    severity + "</span> <code>" + xml_escape(finding.rule) + "</code>";
  if (finding.rank) out += " (rank " + std::to_string(*finding.rank) + ')';
  out += ": " + xml_escape(finding.title) + "</p>\n";
  if (!finding.evidence.empty()) out += html_bullets(finding.evidence);
  return out + "<p class=\"next\">next: " + xml_escape(finding.next_step) + "</p>\n</div>\n";
}

}  // namespace

// Charts by the id of the section they belong to; like the Document's
// detailed sections, they show the focus rank.
HtmlInserts report_inserts(const ProfileReport& report) {
  const RankProfile& focus = report.focus_rank();
  std::map<std::string, std::string> charts{{"steps", step_chart(focus.steps)},
                                            {"ops", op_chart(focus.ops.ops, kTopRows)},
                                            {"data", queue_chart(focus.data.queues)},
                                            {"communication", comm_chart(focus.comm)}};
  if (report.ranks.size() > 1) charts["ranks"] = rank_chart(report.rank_comparison);
  HtmlInserts inserts;
  for (const auto& [id, chart] : charts)
    if (!chart.empty())
      inserts.after_heading[id] = "<figure class=\"chart\">\n" + chart + "\n</figure>\n";
  // The findings section's text blocks give way to the styled findings.
  if (!report.findings.empty()) {
    std::string findings;
    for (const Finding& finding : report.findings) findings += finding_html(finding);
    inserts.after_heading["findings"] = findings;
    inserts.replaced.insert("findings");
  }
  return inserts;
}

}  // namespace parity::analyzer
