// The structural side of `parity compare`: two dumps aligned as sequences in
// execution order. A record dropped, added, run out of order or with another
// shape is named at its place with its neighbours, and the report's first
// line names whichever comes first, a structural or a value divergence.
#include "parity/analyzer/compare/structure_alignment.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dump_fixture.hpp"
#include "parity/analyzer/compare/compare_report.hpp"
#include "parity/analyzer/compare/dump_compare.hpp"
#include "temp_dir.hpp"

using namespace parity::analyzer;
using parity::importers::DumpRecord;
using parity::importers::TensorDump;
using Kind = StructuralDivergence::Kind;

namespace {

DumpComparison compare_specs(const TempDir& dir, const fixture::DumpSpec& a,
                             const fixture::DumpSpec& b) {
  return compare_dumps(TensorDump::open(fixture::write_dump(dir / "a", a)),
                       TensorDump::open(fixture::write_dump(dir / "b", b)));
}

std::string first_line(const DumpComparison& c) {
  std::ostringstream out;
  write_compare_report(c, "text", out);
  return out.str().substr(0, out.str().find('\n'));
}

std::vector<DumpRecord>::iterator at(std::vector<DumpRecord>& records, const std::string& phase,
                                     const std::string& name, const std::string& role) {
  return records.begin() + fixture::index_of(records, phase, name, role);
}

fixture::Plant shift(std::string phase, std::string name, std::string role) {
  return {std::move(phase), std::move(name), std::move(role),
          [](std::vector<float>& v) { v[0] += 1.0f; }};
}

}  // namespace

TEST_CASE("structure: a clean pair has no structural divergence", "[unit][compare]") {
  TempDir dir;
  const DumpComparison c = compare_specs(dir, {}, {});
  CHECK(c.structure.empty());
  CHECK(first_line(c) == "first mismatch: forward: none; backward: none; update: none");
  std::ostringstream json;
  write_compare_report(c, "json", json);
  CHECK(nlohmann::json::parse(json.str())["structure"] == nlohmann::json::array());
}

TEST_CASE("structure: a dropped ReLU is named where it was dropped, not at the next consumer",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  // B's block lost its ReLU: no block output in forward, none in backward,
  // and every later forward value differs.
  b.records.erase(at(b.records, "backward", "layer1.0", "grad_output"));
  b.records.erase(at(b.records, "forward", "layer1.0", "output"));
  b.plants = {shift("forward", "avgpool", "output"), shift("forward", "fc", "output")};
  const DumpComparison c = compare_specs(dir, a, b);

  REQUIRE(c.structure.size() == 2);
  const StructuralDivergence& dropped = c.structure[0];
  CHECK(dropped.kind == Kind::kMissingInB);
  CHECK(c.records_a[*dropped.a].name == "layer1.0");
  CHECK(dropped.after == "layer1.0.bn2");
  CHECK(dropped.before == "avgpool");
  CHECK(dropped.message ==
        "B has no record for step 0 forward layer1.0 output (add_relu), between layer1.0.bn2 and "
        "avgpool");
  CHECK(c.structure[1].message ==
        "B has no record for step 0 backward layer1.0 grad_output (add_relu), between avgpool "
        "and layer1.0.bn2");
  // Structure comes first in forward: the block, not avgpool, whose values differ.
  CHECK(c.count(RecordStatus::kMismatch) == 2);
  CHECK(first_line(c) ==
        "first mismatch: forward: structure: B has no record for step 0 forward layer1.0 output "
        "(add_relu), between layer1.0.bn2 and avgpool; backward: structure: B has no record for "
        "step 0 backward layer1.0 grad_output (add_relu), between avgpool and layer1.0.bn2; update: "
        "none");

  std::ostringstream json;
  write_compare_report(c, "json", json);
  const nlohmann::json report = nlohmann::json::parse(json.str());
  CHECK(report["first_mismatch"]["forward"]["kind"] == "structure");
  CHECK(report["first_mismatch"]["forward"]["a"]["name"] == "layer1.0");
  CHECK(report["first_mismatch"]["forward"]["b"].is_null());
  REQUIRE(report["structure"].size() == 2);
  const nlohmann::json& first = report["structure"][0];
  CHECK(first["kind"] == "missing in B");
  CHECK(first["a"]["index"] == fixture::index_of(c.records_a, "forward", "layer1.0", "output"));
  CHECK(first["after"] == "layer1.0.bn2");
  CHECK(first["before"] == "avgpool");
}

TEST_CASE("structure: a record only B has is placed between A's records around it",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  DumpRecord relu = *at(b.records, "forward", "layer1.0", "output");
  relu.name = relu.module = "layer1.0.relu";
  relu.op = "relu";
  b.records.insert(at(b.records, "forward", "avgpool", "output"), relu);
  const DumpComparison c = compare_specs(dir, a, b);
  REQUIRE(c.structure.size() == 1);
  const StructuralDivergence& added = c.structure[0];
  CHECK(added.kind == Kind::kMissingInA);
  CHECK_FALSE(added.a);
  CHECK(c.records_b[*added.b].name == "layer1.0.relu");
  // Just after A's layer1.0, before A's avgpool.
  const std::size_t block = fixture::index_of(c.records_a, "forward", "layer1.0", "output");
  CHECK(added.order == order_of_record(block) + 1);
  CHECK(first_line(c) ==
        "first mismatch: forward: structure: A has no record for step 0 forward layer1.0.relu "
        "output (relu), between layer1.0 and avgpool; backward: none; update: none");
  // Every pair matches, and still the two ran different ops: a failure.
  CHECK(c.count(RecordStatus::kMismatch) == 0);
  CHECK_FALSE(c.passed());
}

TEST_CASE("structure: a forward record run out of order is named with both neighbours",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  std::iter_swap(at(b.records, "forward", "layer1.0.conv2", "output"),
                 at(b.records, "forward", "layer1.0.bn2", "output"));
  // Backward may order a block's branches either way: not a divergence.
  std::reverse(at(b.records, "backward", "avgpool", "grad_output"),
               at(b.records, "backward", "maxpool", "grad_output"));
  const DumpComparison c = compare_specs(dir, a, b);
  REQUIRE(c.structure.size() == 1);
  CHECK(c.structure[0].kind == Kind::kReordered);
  CHECK(c.structure[0].message ==
        "order: step 0 forward layer1.0.conv2 output (conv2d) runs after layer1.0.bn1 in A, "
        "after layer1.0.bn2 in B");
  CHECK(c.structure[0].order ==
        order_of_record(fixture::index_of(c.records_a, "forward", "layer1.0.conv2", "output")));
}

TEST_CASE("structure: a shape change names both shapes", "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  at(b.records, "forward", "maxpool", "output")->shape = {2, 8, 2, 2};
  const DumpComparison c = compare_specs(dir, a, b);
  REQUIRE(c.structure.size() == 1);
  CHECK(c.structure[0].kind == Kind::kShape);
  CHECK(c.structure[0].message ==
        "shape: step 0 forward maxpool output (max_pool) is [2, 8, 4, 4] in A, [2, 8, 2, 2] in B");
  // The pair fails its layout check at the same place: structure wins the tie.
  CHECK_THAT(first_line(c),
             Catch::StartsWith("first mismatch: forward: structure: shape: step 0 forward maxpool "
                               "output (max_pool) is [2, 8, 4, 4] in A, [2, 8, 2, 2] in B; "));
}

TEST_CASE("structure: the first line names a value divergence that comes first",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  b.records.erase(at(b.records, "forward", "layer1.0", "output"));
  b.plants = {shift("forward", "conv1", "output")};
  const DumpComparison c = compare_specs(dir, a, b);
  REQUIRE(c.structure.size() == 1);
  CHECK_THAT(first_line(c),
             Catch::StartsWith("first mismatch: forward: step 0 forward conv1 (output): allclose: "
                               "1 of 1024 elements"));
  // The structural divergence is still reported in the body.
  std::ostringstream text;
  write_compare_report(c, "text", text);
  CHECK_THAT(text.str(), Catch::Contains("structure: 1 structural divergences"));
  CHECK_THAT(text.str(), Catch::Contains("missing in B  B has no record for step 0 forward "
                                         "layer1.0 output (add_relu), between layer1.0.bn2 and "
                                         "avgpool"));
}

TEST_CASE("structure: a phase one side did not dump is no divergence", "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  std::erase_if(b.records, [](const DumpRecord& r) { return r.phase == "backward"; });
  const DumpComparison c = compare_specs(dir, a, b);
  CHECK(c.structure.empty());
  CHECK(c.count(RecordStatus::kOnlyInA) > 0);
}
