// `parity nan-scan DIR`: the first NaN or Inf of a tensor dump, and the op
// that produced it.
#include "commands.hpp"
#include "parity/analyzer/compare/nan_scan.hpp"
#include "parity/analyzer/compare/nan_scan_report.hpp"
#include "progress.hpp"
#include "report_output.hpp"

namespace parity::cli {

void add_nan_scan_command(CLI::App& app, Run& run) {
  struct Options {
    std::string dir;
    ReportFlags report;
  };
  const auto [command, options] = add_subcommand<Options>(
      app, "nan-scan",
      "Find the first tensor of a dump, in execution order, holding NaN or Inf, and the op that "
      "made it from clean input. Exit code 0 when there is no NaN or Inf, 1 when there is, 2 when "
      "it could not run");
  command
      ->add_option("dir", options->dir,
                   "Dump directory (with a manifest.jsonl, or plain .npy files)")
      ->required();
  add_report_options(*command, options->report, analyzer::nan_scan_report_formats());
  when_chosen(command, run, [options = options] {
    const auto dump = importers::TensorDump::open(options->dir);
    ProgressLine progress("scanning");
    const analyzer::NanScan scan = analyzer::scan_dump(
        dump, [&progress](std::size_t done, std::size_t total) { progress.update(done, total); });
    write_report(options->report, analyzer::nan_scan_report(scan),
                 analyzer::nan_scan_report_formats());
    return scan.found() ? 1 : 0;
  });
}

}  // namespace parity::cli
