// The format table (report_formats.hpp): every format once, offered by the
// parts a command fills, named in the unknown-format error, and each
// rendering its own part of a Report.
#include "parity/analyzer/report/report_formats.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "expect_error.hpp"

using namespace parity::analyzer;

namespace {

std::string rendered(const Report& report, const std::string& format) {
  std::ostringstream out;
  render_report(report, format,
                format_names({ReportPart::kDocument, ReportPart::kData, ReportPart::kChecks,
                              ReportPart::kRecords}),
                out);
  return out.str();
}

}  // namespace

TEST_CASE("report formats: one row each, offered by the parts a report fills", "[unit][report]") {
  std::set<std::string_view> names, extensions;
  for (const ReportFormat& format : report_formats()) {
    CHECK(names.insert(format.name).second);
    CHECK(extensions.insert(format.extension).second);
  }
  CHECK(format_names({ReportPart::kDocument, ReportPart::kData}) ==
        std::vector<std::string>{"text", "md", "html", "json"});
  CHECK(format_names({ReportPart::kRecords, ReportPart::kChecks}) ==
        std::vector<std::string>{"junit", "csv"});
  CHECK(report_file_name("report", "text") == "report.txt");
  CHECK(report_file_name("diff-trace", "junit") == "diff-trace.junit.xml");
  CHECK(report_file_name("diff", "csv") == "diff.csv");
}

TEST_CASE("report formats: a format the command does not offer is refused", "[unit][report]") {
  Report report;
  std::ostringstream out;
  parity::test::expect_error(
      [&] {
        render_report(report, "csv", {"text", "json"}, out);
      },
      "unknown report format 'csv'", {"--format"});
  parity::test::expect_error([&] { render_report(report, "yaml", {"text"}, out); },
                             "unknown report format 'yaml'", {"--format"});
}

TEST_CASE("report formats: each renders its part of the report", "[unit][report]") {
  Report report;
  report.document.heading("Title", 1);
  report.document.fields({{"A", "a.db"}, {"B", "b|c"}});
  report.data = {{"z", 1}, {"a", 2}};
  report.checks = JunitSuite{"suite", 0, {}, {{"class", "case", "it failed", std::nullopt}}};
  report.records = RecordTable{{"a comment"}, {"name", "shape"}, {{"x", "[1, 2]"}}};
  CHECK(rendered(report, "text") == "Title\n=====\n  A: a.db\n  B: b|c\n");
  CHECK(rendered(report, "md") == "# Title\n\n| | |\n|---|---|\n| A | a.db |\n| B | b\\|c |\n\n");
  CHECK_THAT(rendered(report, "html"), Catch::Contains("<title>Title</title>") &&
                                           Catch::Contains("<tr><th>A</th><td>a.db</td></tr>"));
  CHECK(rendered(report, "json") == "{\n  \"z\": 1,\n  \"a\": 2\n}\n");
  CHECK_THAT(rendered(report, "junit"),
             Catch::Contains("<testsuite name=\"suite\" tests=\"1\" failures=\"1\"") &&
                 Catch::Contains("<failure message=\"it failed\"/>"));
  CHECK(rendered(report, "csv") == "# a comment\nname,shape\nx,\"[1, 2]\"\n");
}
