// Golden test: the JSON report of the small hand-made trace, byte for byte,
// against golden/small_trace_report.json. The report holds no unstable ids
// or times; the tool version is blanked and the trace's path shortened. After a deliberate change
// to the report, regenerate with PARITY_UPDATE_GOLDEN=1 and review the diff.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "parity/analyzer/profile/profile_report.hpp"
#include "small_trace.hpp"
#include "temp_dir.hpp"

TEST_CASE("the JSON report of a small trace matches the golden file", "[unit]") {
  TempDir dir;
  small_trace::write(dir / "small.db");
  parity::analyzer::ReportInputs inputs;
  inputs.traces = {dir / "small.db"};
  nlohmann::json report = to_json(parity::analyzer::build_profile_report(inputs));
  report["tool_version"] = "";
  // The trace's temporary path appears wherever the report names the file.
  std::string produced = report.dump(2) + "\n";
  const std::string path = (dir / "small.db").string();
  for (auto at = produced.find(path); at != std::string::npos; at = produced.find(path))
    produced.replace(at, path.size(), "small.db");

  const std::string golden_path = std::string(PARITY_GOLDEN_DIR) + "/small_trace_report.json";
  if (std::getenv("PARITY_UPDATE_GOLDEN")) std::ofstream(golden_path) << produced;
  std::ifstream in(golden_path);
  REQUIRE(in);
  std::stringstream golden;
  golden << in.rdbuf();
  // Compared as JSON first (a readable difference), then as text (key order, number format).
  CHECK(nlohmann::json::parse(produced) == nlohmann::json::parse(golden.str()));
  CHECK(produced == golden.str());
}
