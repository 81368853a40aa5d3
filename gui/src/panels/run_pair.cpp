#include "parity/gui/panels/run_pair.hpp"

namespace parity::gui {

const char* run_name(Run run) { return run == Run::kA ? "A" : "B"; }

RunPair analyze_run_pair(const std::filesystem::path& a, const std::filesystem::path& b,
                         const std::function<void(double)>& progress) {
  // Each run is half of the work.
  const auto report_of = [&progress](const std::filesystem::path& path, double done) {
    analyzer::ReportInputs inputs;
    inputs.traces = {path};
    if (progress)
      inputs.progress = [&progress, done](double fraction) { progress(done + fraction / 2); };
    return std::make_shared<const analyzer::ProfileReport>(analyzer::build_profile_report(inputs));
  };
  RunPair pair;
  pair.a = report_of(a, 0);
  pair.b = report_of(b, 0.5);
  pair.diff = analyzer::diff_traces(pair.a->focus_rank(), pair.b->focus_rank(),
                                    analyzer::Thresholds{}.max_regression_pct);
  return pair;
}

}  // namespace parity::gui
