#include "parity/analyzer/report/report_formats.hpp"

#include <algorithm>
#include <array>

#include "renderers.hpp"

namespace parity::analyzer {
namespace {

constexpr std::array kFormats = {
    ReportFormat{"text", ".txt", ReportPart::kDocument, render_text_format},
    ReportFormat{"md", ".md", ReportPart::kDocument, render_markdown_format},
    ReportFormat{"html", ".html", ReportPart::kDocument, render_html_format},
    ReportFormat{"json", ".json", ReportPart::kData, render_json_format},
    ReportFormat{"junit", ".junit.xml", ReportPart::kChecks, render_junit_format},
    ReportFormat{"csv", ".csv", ReportPart::kRecords, render_csv_format},
};

const ReportFormat* find_format(std::string_view name) {
  const auto found = std::find_if(kFormats.begin(), kFormats.end(),
                                  [name](const ReportFormat& f) { return f.name == name; });
  return found == kFormats.end() ? nullptr : &*found;
}

}  // namespace

std::span<const ReportFormat> report_formats() { return kFormats; }

std::vector<std::string> format_names(std::initializer_list<ReportPart> parts) {
  std::vector<std::string> names;
  for (const ReportFormat& format : kFormats)
    if (std::find(parts.begin(), parts.end(), format.part) != parts.end())
      names.emplace_back(format.name);
  return names;
}

std::string report_file_name(std::string_view stem, std::string_view format) {
  const ReportFormat* found = find_format(format);
  return std::string(stem) + std::string(found ? found->extension : "." + std::string(format));
}

void render_report(const Report& report, std::string_view format,
                   const std::vector<std::string>& offered, std::ostream& out) {
  const ReportFormat* found = find_format(format);
  if (!found || std::find(offered.begin(), offered.end(), format) == offered.end())
    throw unknown_report_format(format, offered);
  found->render(report, out);
}

}  // namespace parity::analyzer
