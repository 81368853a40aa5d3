#include "report_fixture.hpp"

#include "small_trace.hpp"

namespace panels_test {

using parity::analyzer::ReportInputs;

Report small_trace_report(const std::filesystem::path& dir,
                          const parity::analyzer::Thresholds& thresholds) {
  const std::filesystem::path path = dir / "small.db";
  small_trace::write(path);
  ReportInputs inputs;
  inputs.traces = {path};
  inputs.thresholds = thresholds;
  return std::make_shared<const parity::analyzer::ProfileReport>(build_profile_report(inputs));
}

Report synth_report(const std::filesystem::path& dir, const parity::analyzer::SynthOptions& options,
                    const parity::analyzer::Thresholds& thresholds) {
  ReportInputs inputs;
  inputs.traces = write_synth_trace(options, dir / "synth.db");
  inputs.thresholds = thresholds;
  return std::make_shared<const parity::analyzer::ProfileReport>(build_profile_report(inputs));
}

}  // namespace panels_test
