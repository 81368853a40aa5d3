#include "parity/analyzer/report_format.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace parity::analyzer {

std::string format_number(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string format_precise(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string format_throughput(std::uint64_t bytes, double seconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / 1e6 << " MB in "
      << std::setprecision(3) << seconds << " s";
  if (seconds > 0)
    out << " (" << std::setprecision(2) << static_cast<double>(bytes) / 1e9 / seconds << " GB/s)";
  return out.str();
}

nlohmann::json json_number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(format_number(value));
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

Error unknown_report_format(std::string_view format, const std::vector<std::string>& known) {
  std::string names;
  for (std::size_t k = 0; k < known.size(); ++k)
    names += (k == 0 ? "" : k + 1 == known.size() ? " or " : ", ") + known[k];
  return Error("unknown report format '" + std::string(format) + "'", "--format",
               "choose " + names);
}

void write_junit(const JunitSuite& suite, std::ostream& out) {
  std::size_t failures = 0, skipped = 0;
  for (const JunitCase& test : suite.cases) {
    failures += test.failure ? 1 : 0;
    skipped += test.skipped ? 1 : 0;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuite name=\"" << xml_escape(suite.name) << "\" tests=\"" << suite.cases.size()
      << "\" failures=\"" << failures << "\""
      << (skipped ? " skipped=\"" + std::to_string(skipped) + "\"" : "") << " time=\""
      << suite.seconds << "\">\n"
      << "  <properties>\n";
  for (const auto& [name, value] : suite.properties)
    out << "    <property name=\"" << xml_escape(name) << "\" value=\"" << xml_escape(value)
        << "\"/>\n";
  out << "  </properties>\n";
  for (const JunitCase& test : suite.cases) {
    out << "  <testcase classname=\"" << xml_escape(test.classname) << "\" name=\""
        << xml_escape(test.name) << "\"";
    if (!test.failure && !test.skipped) {
      out << "/>\n";
      continue;
    }
    out << ">\n";
    if (test.failure) out << "    <failure message=\"" << xml_escape(*test.failure) << "\"/>\n";
    if (test.skipped) out << "    <skipped message=\"" << xml_escape(*test.skipped) << "\"/>\n";
    out << "  </testcase>\n";
  }
  out << "</testsuite>\n";
}

}  // namespace parity::analyzer
