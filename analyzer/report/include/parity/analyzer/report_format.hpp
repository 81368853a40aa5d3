// Formatting shared by every report of `parity`: numbers, CSV fields and
// JUnit XML, so every report writes them the same way.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parity/core/error.hpp"

namespace parity::analyzer {

// Four significant digits ("0.031", "1.3e-06"); "inf", "-inf", "nan".
std::string format_number(double value);
// Nine significant digits, so 0.999993 does not print as 1.
std::string format_precise(double value);
// "204.9 MB in 0.186 s (1.10 GB/s)".
std::string format_throughput(std::uint64_t bytes, double seconds);
// A JSON number, or "inf"/"-inf"/"nan" as text (JSON has no such numbers).
nlohmann::json json_number(double value);

// The text as one CSV field, quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& text);
std::string xml_escape(const std::string& text);

// The error for a --format that is not one of `known`.
Error unknown_report_format(std::string_view format, const std::vector<std::string>& known);

// A JUnit XML report: one testsuite, one testcase per checked item.
struct JunitCase {
  std::string classname, name;
  std::optional<std::string> failure;  // the failure message; none when it passed
  std::optional<std::string> skipped;  // why it was not checked
};
struct JunitSuite {
  std::string name;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
};
void write_junit(const JunitSuite& suite, std::ostream& out);

}  // namespace parity::analyzer
