#include "parity/gui/panels/finding_evidence.hpp"

#include <QRegularExpression>
#include <QString>

#include "parity/gui/panels/report_rank.hpp"

namespace parity::gui {

namespace {

// The first step number named in the evidence lines ("step 41").
std::optional<std::int64_t> first_named_step(const analyzer::Finding& finding) {
  static const QRegularExpression named_step(QStringLiteral("\\bstep (\\d+)\\b"));
  for (const std::string& line : finding.evidence) {
    const QRegularExpressionMatch match = named_step.match(QString::fromStdString(line));
    if (match.hasMatch()) return match.captured(1).toLongLong();
  }
  return std::nullopt;
}

}  // namespace

std::optional<EvidenceLocation> locate_evidence(const analyzer::Finding& finding,
                                                const analyzer::ProfileReport& report) {
  const std::optional<std::int64_t> step = first_named_step(finding);
  if (!step || report.ranks.empty()) return std::nullopt;
  const analyzer::RankProfile& profile = report_rank(report, finding.rank);
  for (const analyzer::StepBreakdown& s : profile.steps.steps)
    if (s.step == *step)
      return EvidenceLocation{profile.rank, s.step, {s.start_ns, s.start_ns + s.dur_ns}};
  return std::nullopt;
}

}  // namespace parity::gui
