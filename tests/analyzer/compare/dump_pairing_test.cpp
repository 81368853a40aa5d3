// Pairing the records of two dumps: by key with manifests (whatever order
// backward lists them in), through a name map, and for plain .npy
// directories written by NumPy by name, then by order and shape.
#include "parity/analyzer/compare/dump_pairing.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "dump_fixture.hpp"
#include "temp_dir.hpp"

using namespace parity;
using namespace parity::analyzer;
using importers::TensorDump;

namespace {

// "A name <-> B name" for each pair, to compare with expectations.
std::vector<std::string> pair_names(const DumpPairing& pairing, const TensorDump& a,
                                    const TensorDump& b) {
  std::vector<std::string> names;
  for (const RecordPair& pair : pairing.pairs)
    names.push_back(a.records()[pair.a].name + " <-> " + b.records()[pair.b].name);
  return names;
}

}  // namespace

TEST_CASE("compare: manifests pair by (step, phase, role, name), not by position",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec spec_a, spec_b;
  spec_a.records = spec_b.records = fixture::small_network(2);
  // B's backward lists fc.bias's gradient before fc.weight's, and drops one record.
  auto& b = spec_b.records;
  const auto weight = fixture::index_of(b, "backward", "fc.weight", "grad");
  std::swap(b[static_cast<std::size_t>(weight)], b[static_cast<std::size_t>(weight + 1)]);
  b.erase(b.begin() + fixture::index_of(b, "forward", "maxpool", "output"));
  // A has a record B lacks.
  spec_a.records.push_back(spec_a.records.back());
  spec_a.records.back().name = "extra";
  const TensorDump dump_a = TensorDump::open(fixture::write_dump(dir / "a", spec_a));
  const TensorDump dump_b = TensorDump::open(fixture::write_dump(dir / "b", spec_b));

  const DumpPairing pairing = pair_dumps(dump_a, dump_b, "identity");
  CHECK(pairing.method == "by (step, phase, role, name), map identity");
  CHECK(pairing.pairs.size() == dump_b.records().size());
  for (const RecordPair& pair : pairing.pairs) {
    const auto& x = dump_a.records()[pair.a];
    const auto& y = dump_b.records()[pair.b];
    CHECK(std::tie(x.step, x.phase, x.role, x.name) == std::tie(y.step, y.phase, y.role, y.name));
    CHECK(pair.how == "key");
  }
  CHECK(std::is_sorted(pairing.pairs.begin(), pairing.pairs.end(),
                       [](const RecordPair& p, const RecordPair& q) { return p.a < q.a; }));
  REQUIRE(pairing.only_a.size() == 2);  // step 0's maxpool and "extra"
  CHECK(dump_a.records()[pairing.only_a[0]].describe() == "step 0 forward maxpool (output)");
  CHECK(dump_a.records()[pairing.only_a[1]].name == "extra");
  CHECK(pairing.only_b.empty());
}

TEST_CASE("compare: a name map turns A's names into B's before pairing", "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec spec_a, spec_b;
  for (auto& r : spec_a.records) r.name = "net." + r.name;
  const TensorDump a = TensorDump::open(fixture::write_dump(dir / "a", spec_a));
  const TensorDump b = TensorDump::open(fixture::write_dump(dir / "b", spec_b));
  CHECK(pair_dumps(a, b, "identity").pairs.empty());

  std::ofstream(dir / "map.yaml") << "rules:\n  - {from: '^net\\.', to: ''}\n";
  const DumpPairing mapped = pair_dumps(a, b, (dir / "map.yaml").string());
  CHECK(mapped.pairs.size() == b.records().size());
  CHECK(mapped.only_a.empty());
  CHECK(mapped.only_b.empty());
  CHECK(pair_names(mapped, a, b).front() == "net.input <-> input");
  CHECK_THROWS_WITH(pair_dumps(a, b, "no-such-map"),
                    Catch::Contains("neither a built-in name map"));
}

TEST_CASE("compare: plain .npy directories pair by name, then by order and shape",
          "[unit][compare]") {
  TempDir dir;
  // A numbers its tensors in execution order; B (another framework) names
  // them t0, t1, ..., shares two names with A, and has one tensor A lacks.
  fixture::run_numpy(R"(
d = sys.argv[1]
for side in ("a", "b"):
    os.makedirs(os.path.join(d, side))
def save(side, name, shape):
    np.save(os.path.join(d, side, name + ".npy"), np.zeros(shape, np.float32))
for name, shape in [("00_input", (2, 3)), ("01_conv", (2, 8)), ("02_bn", (2, 8)), ("03_pool", (2, 4)),
                    ("fc", (2, 10)), ("loss", ())]:
    save("a", name, shape)
for name, shape in [("t0", (2, 3)), ("t1", (2, 8)), ("t2", (2, 8)), ("t3", (5,)), ("t4", (2, 4)),
                    ("fc", (2, 10)), ("loss", ())]:
    save("b", name, shape)
)",
                     dir.path());
  const TensorDump a = TensorDump::open(dir / "a");
  const TensorDump b = TensorDump::open(dir / "b");
  REQUIRE_FALSE(a.has_manifest());
  const DumpPairing pairing = pair_dumps(a, b, "identity");
  CHECK(pairing.method == "by name, then by order and shape, map identity");
  CHECK(pair_names(pairing, a, b) == std::vector<std::string>{"00_input <-> t0", "01_conv <-> t1",
                                                              "02_bn <-> t2", "03_pool <-> t4",
                                                              "fc <-> fc", "loss <-> loss"});
  for (const RecordPair& pair : pairing.pairs)
    CHECK(pair.how ==
          (a.records()[pair.a].name == b.records()[pair.b].name ? "name" : "order and shape"));
  CHECK(pairing.only_a.empty());
  REQUIRE(pairing.only_b.size() == 1);
  CHECK(b.records()[pairing.only_b[0]].name == "t3");
}

TEST_CASE("compare: order and shape keep the order: equal shapes pair in sequence",
          "[unit][compare]") {
  TempDir dir;
  // Four tensors of one shape on each side, under unrelated names: they pair
  // first with first, second with second, whatever their names.
  fixture::run_numpy(R"(
d = sys.argv[1]
for side, names in (("a", ["l1", "l2", "l3", "l4"]), ("b", ["x1", "x2", "x3", "x4"])):
    os.makedirs(os.path.join(d, side))
    for name in names:
        np.save(os.path.join(d, side, name + ".npy"), np.ones((3, 3), np.float64))
)",
                     dir.path());
  const TensorDump a = TensorDump::open(dir / "a");
  const TensorDump b = TensorDump::open(dir / "b");
  CHECK(pair_names(pair_dumps(a, b, "identity"), a, b) ==
        std::vector<std::string>{"l1 <-> x1", "l2 <-> x2", "l3 <-> x3", "l4 <-> x4"});
}

TEST_CASE("compare: a manifest against a plain directory pairs by name, then by order and shape",
          "[unit][compare]") {
  TempDir dir;
  fixture::DumpSpec spec;
  spec.records.resize(4);  // input, conv1, bn1, maxpool
  const TensorDump a = TensorDump::open(fixture::write_dump(dir / "a", spec));
  fixture::run_numpy(R"(
d = os.path.join(sys.argv[1], "b")
os.makedirs(d)
np.save(os.path.join(d, "input.npy"), np.zeros((2, 3, 8, 8), np.float32))
np.save(os.path.join(d, "t1.npy"), np.zeros((2, 8, 8, 8), np.float32))
np.save(os.path.join(d, "t2.npy"), np.zeros((2, 8, 8, 8), np.float32))
np.save(os.path.join(d, "t3.npy"), np.zeros((2, 8, 4, 4), np.float32))
)",
                     dir.path());
  const TensorDump b = TensorDump::open(dir / "b");
  CHECK(
      pair_names(pair_dumps(a, b, "identity"), a, b) ==
      std::vector<std::string>{"input <-> input", "conv1 <-> t1", "bn1 <-> t2", "maxpool <-> t3"});
}
