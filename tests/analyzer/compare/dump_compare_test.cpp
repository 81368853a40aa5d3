// compare_dumps and its report on dumps written by DumpWriter: the first
// mismatch in forward and backward order, the check that failed, tolerances,
// statistics-only records, layout mismatches and bad dumps.
#include "parity/analyzer/compare/dump_compare.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dump_fixture.hpp"
#include "expect_error.hpp"
#include "parity/analyzer/compare/compare_report.hpp"
#include "temp_dir.hpp"

using namespace parity;
using namespace parity::analyzer;
using importers::TensorDump;

namespace {

DumpComparison compare_specs(const TempDir& dir, const fixture::DumpSpec& a,
                             const fixture::DumpSpec& b, CompareOptions options = {}) {
  return compare_dumps(TensorDump::open(fixture::write_dump(dir / "a", a)),
                       TensorDump::open(fixture::write_dump(dir / "b", b)), options);
}

std::string report(const DumpComparison& comparison, const std::string& format, bool all = false) {
  std::ostringstream out;
  write_compare_report(comparison, format, out, all);
  return out.str();
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

fixture::Plant add_at(std::string phase, std::string name, std::string role, std::size_t element,
                      float delta) {
  return {std::move(phase), std::move(name), std::move(role),
          [element, delta](std::vector<float>& v) { v[element] += delta; }};
}

const RecordDiff& diff_of(const DumpComparison& c, const std::string& phase,
                          const std::string& name, const std::string& role) {
  for (const RecordDiff& d : c.diffs)
    if (d.a && c.records_a[*d.a].phase == phase && c.records_a[*d.a].name == name &&
        c.records_a[*d.a].role == role)
      return d;
  FAIL("no diff for " << phase << " " << name << " " << role);
  throw;
}

}  // namespace

TEST_CASE("compare: identical dumps match on every pair", "[unit][compare]") {
  TempDir dir;
  const DumpComparison c = compare_specs(dir, {}, {});
  CHECK(c.passed());
  CHECK(c.pairs() == fixture::small_network().size());
  CHECK(c.count(RecordStatus::kMismatch) == 0);
  CHECK(c.statistics_only() == 0);
  CHECK(c.bytes_read > 0);
  CHECK_FALSE(c.first_forward);
  CHECK(first_line(report(c, "text")) ==
        "first mismatch: forward: none; backward: none; update: none");
  for (const RecordDiff& d : c.diffs) {
    REQUIRE(d.metrics);
    CHECK(d.metrics->all_equal());
    CHECK(*d.metrics->max_ulp_diff == 0);
  }
}

TEST_CASE("compare: the first line names the first mismatch in forward and in backward order",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  // Planted in forward layer1.0.bn1 (element 77 of [2, 8, 4, 4] is [0, 4, 3, 1]) and in
  // every later forward record, and in two backward records; B lists backward's
  // records in another order, so the first backward mismatch is A's.
  a.plants = {add_at("forward", "layer1.0.bn1", "output", 77, 0.031f),
              add_at("forward", "layer1.0.conv2", "output", 0, 1.0f),
              add_at("forward", "fc", "output", 3, 1.0f),
              add_at("backward", "layer1.0.conv2.weight", "grad", 5, 0.5f),
              add_at("backward", "maxpool", "grad_output", 1, 0.25f),
              add_at("update", "fc.bias", "param_after", 2, 1e-3f)};
  std::reverse(
      b.records.begin() + fixture::index_of(b.records, "backward", "fc", "grad_output"),
      b.records.begin() + fixture::index_of(b.records, "update", "conv1.weight", "param_before"));
  const DumpComparison c = compare_specs(dir, a, b);
  CHECK_FALSE(c.passed());
  CHECK(c.count(RecordStatus::kMismatch) == 6);

  const std::string text = report(c, "text");
  INFO(text);
  CHECK(
      first_line(text) ==
      "first mismatch: forward: step 0 forward layer1.0.bn1 (output): allclose: 1 of 256 elements "
      "outside rtol=1.3e-06 atol=1e-05, max abs 0.031 at [0, 4, 3, 1]; backward: step 0 backward "
      "layer1.0.conv2.weight (grad): allclose: 1 of 576 elements outside rtol=1.3e-06 atol=1e-05, "
      "max abs 0.5 at [0, 0, 1, 2]; update: step 0 update fc.bias (param_after): allclose: 1 of 10 "
      "elements outside rtol=1.3e-06 atol=1e-05, max abs 0.001 at [2]");
  CHECK_THAT(text,
             Catch::Contains(
                 "summary: 37 pairs compared, 31 match, 6 mismatch, 0 only in A, 0 only in B"));
  // The table lists the mismatching pairs in A's execution order (a cell is
  // followed by a space, which tells the table from the first line).
  const auto at = [&](const std::string& record) {
    const auto position = text.find(record + " ");
    CHECK(position != std::string::npos);
    return position;
  };
  CHECK(at("step 0 forward layer1.0.bn1 (output)") < at("step 0 forward layer1.0.conv2 (output)"));
  CHECK(at("step 0 forward layer1.0.conv2 (output)") < at("step 0 forward fc (output)"));
  CHECK(at("step 0 forward fc (output)") < at("step 0 backward layer1.0.conv2.weight (grad)"));
  CHECK(at("step 0 backward layer1.0.conv2.weight (grad)") <
        at("step 0 backward maxpool (grad_output)"));
  CHECK(at("step 0 backward maxpool (grad_output)") < at("step 0 update fc.bias (param_after)"));
  CHECK_THAT(text, !Catch::Contains("step 0 forward input (input)"));  // matches are left out...
  CHECK_THAT(report(c, "text", true),
             Catch::Contains("step 0 forward input (input)"));  // ...unless --all

  const RecordDiff& bn = diff_of(c, "forward", "layer1.0.bn1", "output");
  CHECK(bn.metrics->max_abs_index == 77);
  CHECK(bn.metrics->within_tolerance == 255);
  const float original = fixture::values_of(c.records_a[*bn.a])[77];
  CHECK(bn.metrics->max_abs_diff ==
        Approx(std::abs((original + 0.031f) - original)).epsilon(1e-12));
}

TEST_CASE("compare: every report format leads with the first mismatch and lists the pairs",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  a.plants = {add_at("forward", "conv1", "output", 0, 1.0f)};
  b.records.erase(b.records.begin() + fixture::index_of(b.records, "backward", "fc.bias", "grad"));
  const DumpComparison c = compare_specs(dir, a, b);
  CHECK_FALSE(c.passed());
  const std::string line = first_line(report(c, "text"));
  CHECK_THAT(line,
             Catch::StartsWith(
                 "first mismatch: forward: step 0 forward conv1 (output): allclose: 1 of 1024"));
  // B's missing gradient is the first divergence in backward order.
  CHECK_THAT(line, Catch::EndsWith("; backward: structure: B has no record for step 0 backward "
                                   "fc.bias grad (linear), between fc.weight and avgpool; update: none"));

  const nlohmann::json json = nlohmann::json::parse(report(c, "json"));
  CHECK(json.begin().key() == "first_mismatch");
  CHECK(json["first_mismatch"]["forward"]["a"]["name"] == "conv1");
  CHECK(json["first_mismatch"]["forward"]["failure"].get<std::string>().starts_with(
      "allclose: 1 of 1024"));
  CHECK(json["first_mismatch"]["forward"]["kind"] == "value");
  CHECK(json["first_mismatch"]["backward"]["kind"] == "structure");
  CHECK(json["first_mismatch"]["backward"]["a"]["name"] == "fc.bias");
  CHECK(json["summary"]["mismatch"] == 1);
  CHECK(json["summary"]["only_in_a"] == 1);
  CHECK(json["summary"]["passed"] == false);
  CHECK(json["records"].size() == c.diffs.size());
  const auto& conv = json["records"][1];
  CHECK(conv["status"] == "mismatch");
  CHECK(conv["metrics"]["max_abs_index"] == nlohmann::json::array({0, 0, 0, 0}));
  CHECK(conv["metrics"]["max_ulp_diff"].is_number());
  const auto fc_bias = std::find_if(json["records"].begin(), json["records"].end(),
                                    [](const auto& r) { return r["status"] == "only in A"; });
  REQUIRE(fc_bias != json["records"].end());
  CHECK((*fc_bias)["a"]["name"] == "fc.bias");
  CHECK((*fc_bias)["b"].is_null());

  const std::string csv = report(c, "csv");
  CHECK(first_line(csv) == "# " + line);
  CHECK_THAT(csv, Catch::Contains("\n1,1,mismatch,step 0 forward conv1 (output),\"[2, 8, 8, "
                                  "8]\",float32,values,1,\"[0, 0, 0, 0]\""));
  CHECK_THAT(csv, Catch::Contains(",,only in A,step 0 backward fc.bias (grad),[10],float32,"));

  const std::string md = report(c, "md");
  CHECK(first_line(md) == "# " + line);
  CHECK_THAT(md, Catch::Contains("| 1 | mismatch | step 0 forward conv1 (output) | [2, 8, 8, 8] | "
                                 "float32 | 1 | [0, 0, 0, 0] |"));
  // B lacks a record A ran: structure, not a warning.
  CHECK_THAT(md, Catch::Contains("## No counterpart\n"));

  const std::string xml = report(c, "junit");
  CHECK_THAT(xml,
             Catch::Contains(
                 "<testsuite name=\"parity compare\" tests=\"37\" failures=\"1\" skipped=\"1\""));
  CHECK_THAT(xml, Catch::Contains("<property name=\"first_mismatch\" value=\"" + line + "\"/>"));
  CHECK_THAT(xml,
             Catch::Contains(
                 "<testcase classname=\"step0.forward\" name=\"step 0 forward conv1 (output)\">\n"
                 "    <failure message=\"allclose: 1 of 1024"));
  CHECK_THAT(xml, Catch::Contains("<skipped message=\"only in A: no counterpart\"/>"));
  CHECK_THROWS_WITH(report(c, "xml"), Catch::Contains("unknown report format 'xml'"));
}

TEST_CASE("compare: records with no counterpart fail as structure, or warn where a phase was not "
          "dumped",
          "[unit][compare]") {
  TempDir dir, other;
  fixture::DumpSpec a, b;
  b.records.pop_back();
  a.records.erase(a.records.begin());
  const DumpComparison c = compare_specs(dir, a, b);
  CHECK_FALSE(c.passed());  // each side lacks a record the other ran: two structural divergences
  CHECK(c.structure.size() == 2);
  CHECK(c.count(RecordStatus::kMismatch) == 0);
  CHECK(c.count(RecordStatus::kOnlyInA) == 1);
  CHECK(c.count(RecordStatus::kOnlyInB) == 1);
  const std::string text = report(c, "text");
  CHECK_THAT(text, Catch::Contains("warning: 2 records have no counterpart"));
  CHECK_THAT(text, Catch::Contains("only in B  step 0 forward input (input)"));
  CHECK_THAT(text, Catch::Contains("only in A  step 0 update fc.bias (param_after)"));

  // B dumped no update phase at all: what was dumped differs, not what ran.
  fixture::DumpSpec full, no_update;
  std::erase_if(no_update.records, [](const importers::DumpRecord& r) { return r.phase == "update"; });
  const DumpComparison partial = compare_specs(other, full, no_update);
  CHECK(partial.passed());
  CHECK(partial.structure.empty());
  CHECK(partial.count(RecordStatus::kOnlyInA) > 0);
  CHECK(partial.count(RecordStatus::kOnlyInB) == 0);
  CHECK_THAT(report(partial, "text"), Catch::Contains("(listed below; warnings, not failures)"));
}

TEST_CASE("compare: tolerances: dtype defaults, --rtol/--atol, --tol globs (first match wins)",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  a.plants = {add_at("forward", "layer1.0.conv1", "output", 0, 2e-4f),
              add_at("forward", "fc", "output", 0, 2e-4f)};
  CompareOptions options;
  options.tolerances.overrides = {parse_tolerance_override("layer1.*=0,1e-3"),
                                  parse_tolerance_override("layer1.0.conv1=0,0")};
  const DumpComparison c = compare_specs(dir, a, b, options);
  CHECK(diff_of(c, "forward", "layer1.0.conv1", "output").status == RecordStatus::kMatch);
  CHECK(diff_of(c, "forward", "layer1.0.conv1", "output").tolerance.atol == 1e-3);
  CHECK(diff_of(c, "forward", "fc", "output").status == RecordStatus::kMismatch);
  CHECK(diff_of(c, "forward", "fc", "output").tolerance.rtol == 1.3e-6);  // float32's default

  options = {};
  options.tolerances.atol = 1e-3;
  TempDir again;
  const DumpComparison loose = compare_specs(again, a, b, options);
  CHECK(loose.passed());
  CHECK(diff_of(loose, "forward", "fc", "output").tolerance.rtol == 1.3e-6);
}

TEST_CASE("compare: float32 against float64: float32 tolerance and ULPs", "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  b.float64 = true;
  const DumpComparison c = compare_specs(dir, a, b);
  CHECK(c.passed());
  const RecordDiff& fc = diff_of(c, "forward", "fc", "output");
  CHECK(fc.tolerance.rtol == 1.3e-6);
  CHECK(*fc.metrics->max_ulp_diff == 0);  // float32 values widened: no float32 ULP apart
}

TEST_CASE("compare: NaN on both sides at the same place matches, elsewhere it is named",
          "[unit][compare]") {
  TempDir dir;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  fixture::DumpSpec a, b;
  const auto set_nan = [nan](std::size_t element) {
    return [nan, element](std::vector<float>& v) { v[element] = nan; };
  };
  a.plants = {{"forward", "bn1", "output", set_nan(9)},
              {"backward", "bn1", "grad_output", set_nan(9)},
              {"backward", "conv1", "grad_output", set_nan(9)}};
  b.plants = {{"forward", "bn1", "output", set_nan(9)},
              {"backward", "bn1", "grad_output", set_nan(10)}};
  const DumpComparison c = compare_specs(dir, a, b);
  CHECK(diff_of(c, "forward", "bn1", "output").status == RecordStatus::kMatch);
  const RecordDiff& moved = diff_of(c, "backward", "bn1", "grad_output");
  CHECK(moved.failure == "nan positions differ: 2 of 1024 elements, first at [0, 0, 1, 1]");
  CHECK(diff_of(c, "backward", "conv1", "grad_output").failure ==
        "nan positions differ: 1 of 1024 elements, first at [0, 0, 1, 1]");
  CHECK_THAT(first_line(report(c, "text")),
             Catch::EndsWith(
                 "backward: step 0 backward bn1 (grad_output): nan positions differ: 2 of 1024 "
                 "elements, first at [0, 0, 1, 1]; update: none"));
}

TEST_CASE("compare: a stats-only side is compared by its statistics, and the report says so",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  b.stats_only = true;
  a.plants = {add_at("forward", "maxpool", "output", 4, 0.5f)};
  const DumpComparison c = compare_specs(dir, a, b);
  CHECK(c.statistics_only() == c.pairs());
  const RecordDiff& pool = diff_of(c, "forward", "maxpool", "output");
  REQUIRE(pool.stats);
  CHECK_FALSE(pool.metrics);
  CHECK_THAT(pool.failure, Catch::StartsWith("statistics: mean "));
  CHECK_THAT(pool.failure, Catch::EndsWith(" outside rtol=1.3e-06 atol=1e-05"));
  CHECK(diff_of(c, "forward", "conv1", "output").status == RecordStatus::kMatch);
  const std::string text = report(c, "text");
  CHECK_THAT(first_line(text),
             Catch::Contains("forward: step 0 forward maxpool (output): statistics: mean "));
  CHECK_THAT(text, Catch::Contains("note: 37 pairs were compared by their statistics only"));
  CHECK_THAT(report(c, "text", true), Catch::Contains("statistics only"));
  CHECK(nlohmann::json::parse(report(c, "json"))["records"][0]["compared"] == "statistics");
}

TEST_CASE("compare: statistics: NaN counts must be equal", "[unit][compare]") {
  importers::TensorStats x, y;
  x.mean = y.mean = 1.0;
  x.nan = 2;
  CHECK(compare_stats(x, y, {}).failure == "nan count 2 vs 0");
  y.nan = 2;
  y.inf = 1;
  CHECK(compare_stats(x, y, {}).failure == "inf count 0 vs 1");
  y.inf = 0;
  CHECK_FALSE(compare_stats(x, y, {}).failure);
  y.mean.reset();
  CHECK(compare_stats(x, y, {}).failure ==
        "mean 1 vs none (no finite element) outside rtol=0 atol=0");
}

TEST_CASE("compare: shape and dtype-class mismatches fail the pair without comparing values",
          "[unit][compare]") {
  TempDir dir;
  fixture::run_numpy(R"(
d = sys.argv[1]
for side in ("a", "b"):
    os.makedirs(os.path.join(d, side))
np.save(os.path.join(d, "a", "reshaped.npy"), np.zeros((2, 3), np.float32))
np.save(os.path.join(d, "b", "reshaped.npy"), np.zeros((3, 2), np.float32))
np.save(os.path.join(d, "a", "resized.npy"), np.zeros((2, 3), np.float32))
np.save(os.path.join(d, "b", "resized.npy"), np.zeros((4,), np.float32))
np.save(os.path.join(d, "a", "labels.npy"), np.zeros((4,), np.float32))
np.save(os.path.join(d, "b", "labels.npy"), np.zeros((4,), np.int64))
np.save(os.path.join(d, "a", "mask.npy"), np.array([1, 0, 1], np.int32))
np.save(os.path.join(d, "b", "mask.npy"), np.array([True, False, True]))
)",
                     dir.path());
  const DumpComparison c = compare_dumps(TensorDump::open(dir / "a"), TensorDump::open(dir / "b"));
  const auto failure = [&](const std::string& name) {
    for (const RecordDiff& d : c.diffs)
      if (c.records_a[*d.a].name == name) return d.failure;
    return std::string("?");
  };
  CHECK(failure("reshaped") == "shape [2, 3] vs [3, 2] (same element count)");
  CHECK(failure("resized") == "shape [2, 3] vs [4]");
  CHECK(failure("labels") == "dtype float32 vs int64");
  CHECK(failure("mask").empty());  // integers and bool compare by value
  CHECK(c.count(RecordStatus::kMismatch) == 3);
  // No phases: every record is in forward order; labels comes first by name.
  CHECK(first_line(report(c, "text")) ==
        "first mismatch: forward: labels: dtype float32 vs int64; backward: none (a side has no "
        "phases)");
}

TEST_CASE("compare: more threads give the same comparison", "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec a, b;
  a.records = b.records = fixture::small_network(3);
  a.plants = {add_at("backward", "layer1.0", "grad_output", 3, 1.0f)};
  CompareOptions one, many;
  one.parallel.threads = 1;
  many.parallel.threads = 4;
  std::size_t calls = 0;
  many.parallel.progress = [&calls](std::size_t, std::size_t) { ++calls; };
  const TensorDump x = TensorDump::open(fixture::write_dump(dir / "a", a));
  const TensorDump y = TensorDump::open(fixture::write_dump(dir / "b", b));
  const DumpComparison serial = compare_dumps(x, y, one);
  const DumpComparison parallel = compare_dumps(x, y, many);
  CHECK(calls == parallel.pairs());
  CHECK(report(serial, "csv") == report(parallel, "csv"));
  CHECK(parallel.count(RecordStatus::kMismatch) == 3);  // one per step
}

TEST_CASE(
    "compare: a missing .npy file, one that disagrees with its manifest, or no data are errors",
    "[unit][compare]") {
  TempDir dir;
  const auto a = fixture::write_dump(dir / "a", {});
  const auto b = fixture::write_dump(dir / "b", {});
  const std::string conv1 = nlohmann::json::parse(fixture::manifest_line(a, 3))["file"];
  std::filesystem::remove(a / conv1);
  CHECK_THROWS_WITH(compare_dumps(TensorDump::open(a), TensorDump::open(b)),
                    Catch::Contains(conv1));

  // B's line for conv1 says float64; its file holds float32.
  nlohmann::json line = nlohmann::json::parse(fixture::manifest_line(b, 3));
  line["dtype"] = "float64";
  fixture::replace_manifest_line(b, 3, line.dump());
  std::filesystem::copy(b / conv1, a / conv1);
  CHECK_THROWS_WITH(
      compare_dumps(TensorDump::open(a), TensorDump::open(b)),
      Catch::Contains(
          "the file holds float32 [2, 8, 8, 8], the manifest says float64 [2, 8, 8, 8]"));

  line["dtype"] = "float32";
  line["file"] = nullptr;
  line["stats"] = nullptr;
  fixture::replace_manifest_line(b, 3, line.dump());
  parity::test::expect_error(
      [&] { compare_dumps(TensorDump::open(a), TensorDump::open(b)); },
      "the record holds neither values nor statistics: step 0 forward conv1 (output)",
      b / "manifest.jsonl");
}
