// Tensor dumps (docs/formats/dump.md): statistics against a float64
// reference, the writer's files read back by us and by NumPy, plain .npy
// directories, and every refusal of a bad manifest naming its line.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>

#include "expect_error.hpp"
#include "log_capture.hpp"
#include "parity/importers/dump/dump_writer.hpp"
#include "parity/importers/dump/tensor_dump.hpp"
#include "parity/importers/numpy.hpp"
#include "process.hpp"
#include "random_floats.hpp"
#include "temp_dir.hpp"

using namespace parity::importers;
using parity::test::expect_error;
namespace fs = std::filesystem;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

DumpRecord record(std::string name, std::vector<std::int64_t> shape, std::string phase = "forward",
                  std::string role = "output") {
  DumpRecord r;
  r.step = 0;
  r.phase = std::move(phase);
  r.name = r.module = std::move(name);
  r.op = "conv2d";
  r.role = std::move(role);
  r.shape = std::move(shape);
  return r;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

const std::string kHeader = R"({"format": "parity-dump", "version": 1})";
const std::string kGoodRecord =
    R"({"index": 0, "step": 0, "phase": "forward", "name": "conv1", "module": "conv1", "op": "conv2d", )"
    R"("role": "output", "dtype": "float32", "shape": [2], "file": null, )"
    R"("stats": {"min": 1, "max": 2, "mean": 1.5, "std": 0.5, "l2": 2.2, "nan": 0, "inf": 0}})";

}  // namespace

TEST_CASE("statistics are over the finite elements, in float64", "[unit]") {
  const std::vector<float> values{1e8f + 1, 1e8f + 3, kNaN, -kInf, 1e8f + 5, kInf};
  const TensorStats stats = compute_stats(std::span<const float>(values));
  std::vector<double> finite;
  for (float v : values)
    if (std::isfinite(v)) finite.push_back(v);
  double mean = 0, squares = 0, l2 = 0;
  for (double v : finite) mean += v / double(finite.size());
  for (double v : finite) squares += (v - mean) * (v - mean) / double(finite.size());
  for (double v : finite) l2 += v * v;
  CHECK(stats.nan == 1);
  CHECK(stats.inf == 2);
  CHECK(*stats.min == finite[0]);
  CHECK(*stats.max == finite[2]);
  CHECK(*stats.mean == Approx(mean).epsilon(1e-15));
  // A large mean does not swallow the spread (the sums are shifted).
  CHECK(*stats.std == Approx(std::sqrt(squares)).epsilon(1e-12));
  CHECK(stats.l2 == Approx(std::sqrt(l2)).epsilon(1e-15));

  const std::vector<float> none{kNaN, kInf};
  const TensorStats empty = compute_stats(std::span<const float>(none));
  CHECK_FALSE(empty.min.has_value());
  CHECK_FALSE(empty.mean.has_value());
  CHECK(empty.l2 == 0);
  CHECK_FALSE(empty.finite());
}

TEST_CASE("statistics of long tensors, four floats a step, equal a float64 reference", "[unit]") {
  // Blocks of 256 go four floats at a time unless they hold a NaN or an Inf;
  // lengths around the block size and NaN/Inf placed in some blocks only
  // cover the first value, the blocks, the checked blocks and the tail. From
  // 2^18 elements a tensor is summed in one part per thread: the longest
  // case leads with a NaN, and has its extremes and non-finite values in
  // different parts.
  for (const std::size_t count : {255u, 256u, 257u, 1000u, 4099u, 700001u}) {
    std::vector<float> values = random_floats(count, unsigned(count), 5.0f, 9.0f);
    if (count > 600) {
      values[300] = kNaN;
      values[count - 2] = -kInf;
    }
    if (count > 100000) {
      values[0] = kNaN;
      values[count / 2 + 7] = kInf;
      values[count - 5] = 1.0f;
      values[count / 3] = 20.0f;
    }
    // The reference sums in long double: over 700001 elements a float64
    // sum in order is itself off by about 1e-13.
    long double sum = 0, l2 = 0;
    double low = 1e9, high = -1e9;
    std::int64_t n = 0, nan = 0, inf = 0;
    for (const float v : values)
      if (std::isfinite(v)) {
        sum += v;
        l2 += (long double)v * v;
        low = std::min(low, double(v));
        high = std::max(high, double(v));
        ++n;
      } else {
        ++(std::isnan(v) ? nan : inf);
      }
    const double mean = double(sum / n);
    long double squares = 0;
    for (const float v : values)
      if (std::isfinite(v)) squares += ((long double)v - mean) * ((long double)v - mean);
    const TensorStats stats = compute_stats(std::span<const float>(values));
    INFO(count << " elements");
    CHECK(stats.nan == nan);
    CHECK(stats.inf == inf);
    CHECK(*stats.min == low);
    CHECK(*stats.max == high);
    CHECK(*stats.mean == Approx(mean).epsilon(1e-13));
    CHECK(*stats.std == Approx(double(std::sqrt(squares / n))).epsilon(1e-10));
    CHECK(stats.l2 == Approx(double(std::sqrt(l2))).epsilon(1e-13));
  }
}

TEST_CASE("a written dump reads back record by record, and NumPy reads its arrays", "[unit]") {
  TempDir dir;
  const std::vector<float> a{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1.0f};
  const std::vector<double> loss{2.302585092994046};
  // A batch counter beyond 2^53, where a double could not hold it.
  const std::vector<std::int64_t> counter{(std::int64_t{1} << 53) + 1};
  {
    DumpWriter writer(dir / "dump", {"test", "resnet18", false, {}});
    CHECK(writer.write(record("conv1", {2, 3}), a).file == "tensors/000000-s0-forward-conv1-output.npy");
    writer.write(record("loss", {}, "forward", "loss"), std::span<const double>(loss));
    writer.write(record("bn1.num_batches_tracked", {}, "update", "buffer_after"),
                 std::span<const std::int64_t>(counter));
    CHECK(writer.records() == 3);
    CHECK(writer.bytes_written() == a.size() * 4 + 8 + 8);
  }
  const TensorDump dump = TensorDump::open(dir / "dump");
  REQUIRE(dump.has_manifest());
  CHECK(dump.header().model == "resnet18");
  REQUIRE(dump.records().size() == 3);
  CHECK(dump.records()[2].dtype == parity::DType::kInt64);
  CHECK(dump.records()[2].shape.empty());
  CHECK(dump.read(dump.records()[2]).values<std::int64_t>() == counter);
  const DumpRecord& first = dump.records()[0];
  CHECK(first.index == 0);
  CHECK(first.shape == std::vector<std::int64_t>{2, 3});
  CHECK(*first.stats->max == 7.0);
  CHECK(dump.read(first).values<float>() == a);
  CHECK(dump.records()[1].dtype == parity::DType::kFloat64);
  CHECK(dump.read(dump.records()[1]).values<double>() == loss);

  const auto python = run_process(
      {PARITY_PYTHON, "-c",
       "import json, sys, numpy as np\n"
       "d = sys.argv[1]\n"
       "lines = [json.loads(l) for l in open(d + '/manifest.jsonl')]\n"
       "assert lines[0]['format'] == 'parity-dump'\n"
       "x = np.load(d + '/' + lines[1]['file'])\n"
       "assert x.dtype == np.float32 and x.shape == (2, 3), x\n"
       "assert abs(float(x.std()) - lines[1]['stats']['std']) < 1e-6\n"
       "n = np.load(d + '/' + lines[3]['file'])\n"
       "assert n.dtype == np.int64 and n.shape == (), n\n"
       "print(x.ravel().tolist(), float(np.load(d + '/' + lines[2]['file'])), int(n))\n",
       (dir / "dump").string()});
  INFO(python.err);
  REQUIRE(python.exit_code == 0);
  CHECK(python.out == "[1.5, -2.0, 3.25, 0.0, 7.0, -1.0] 2.302585092994046 9007199254740993\n");
}

TEST_CASE("a stats-only dump has no arrays and says so when one is asked for", "[unit]") {
  TempDir dir;
  const std::vector<float> a{1, 2};
  {
    DumpWriter writer(dir / "dump", {"test", "", true, {}});
    CHECK_FALSE(writer.write(record("conv1", {2}), a).file.has_value());
  }
  CHECK(fs::is_empty(dir / "dump" / "tensors"));
  const TensorDump dump = TensorDump::open(dir / "dump");
  REQUIRE(dump.records().size() == 1);
  CHECK(dump.records()[0].stats->l2 == Approx(std::sqrt(5.0)));
  expect_error([&] { dump.read(dump.records()[0]); }, "statistics only", {(dir / "dump").string()});
}

TEST_CASE("a dump never lands in a directory that holds something", "[unit]") {
  TempDir dir;
  write_text(dir / "other.txt", "x");
  expect_error([&] { DumpWriter(dir.path(), {}); }, "exists and is not empty", {dir.path().string()});
}

TEST_CASE("a plain directory of .npy files is read in natural order", "[unit]") {
  TempDir dir;
  for (const char* name : {"10_fc", "2_conv", "1_input"}) {
    const std::vector<float> v{1, 2};
    write_npy(dir / (std::string(name) + ".npy"), NamedTensor::from_values<float>(name, {2}, v));
  }
  const TensorDump dump = TensorDump::open(dir.path());
  CHECK_FALSE(dump.has_manifest());
  REQUIRE(dump.records().size() == 3);
  CHECK(dump.records()[0].name == "1_input");
  CHECK(dump.records()[1].name == "2_conv");
  CHECK(dump.records()[2].name == "10_fc");
  CHECK(dump.records()[2].index == 2);
  CHECK_FALSE(dump.records()[2].stats.has_value());
  CHECK(natural_less("a2", "a10"));
  CHECK_FALSE(natural_less("a10", "a2"));
  CHECK(natural_less("a02", "a3"));
  CHECK(natural_less("abc", "abd"));
}

TEST_CASE("bad manifests are refused naming the line and the fault", "[unit]") {
  TempDir dir;
  const fs::path manifest = dir / "manifest.jsonl";
  const auto refused = [&](const std::string& text, const std::string& what, int line) {
    write_text(manifest, text);
    expect_error([&] { TensorDump::open(dir.path()); }, what,
                 {manifest.string() + ":" + std::to_string(line)});
  };
  auto with = [](std::string record, const std::string& from, const std::string& to) {
    record.replace(record.find(from), from.size(), to);
    return record;
  };
  refused(R"({"format": "other", "version": 1})" "\n", "not parity-dump", 1);
  refused(R"({"format": "parity-dump", "version": 2})" "\n", "version 2 is not supported", 1);
  refused(R"({"index": 0})" "\n", "not a parity-dump header", 1);
  refused(kHeader + "\n" + "{not json\n", "not a JSON object", 2);
  refused(kHeader + "\n" + with(kGoodRecord, R"("step": 0, )", "") + "\n", "'step' is missing", 2);
  refused(kHeader + "\n" + with(kGoodRecord, "float32", "complex64") + "\n", "unknown dtype", 2);
  refused(kHeader + "\n" + with(kGoodRecord, "[2]", "[-2]") + "\n", "non-negative", 2);
  refused(kHeader + "\n" + with(kGoodRecord, "null", R"("../x.npy")") + "\n", "not a path inside", 2);
  refused(kHeader + "\n" + with(kGoodRecord, R"("nan": 0)", R"("nan": -1)") + "\n", "negative NaN", 2);
  refused(kHeader + "\n" + kGoodRecord + "\n" + with(kGoodRecord, R"("index": 0)", R"("index": 1)") + "\n",
          "a second record", 3);
  refused(kHeader + "\n" + with(kGoodRecord, R"("index": 0)", R"("index": 5)") + "\n" + kGoodRecord + "\n",
          "does not follow", 3);
}

TEST_CASE("a manifest cut in its last line keeps every whole record", "[unit]") {
  TempDir dir;
  write_text(dir / "manifest.jsonl", kHeader + "\n" + kGoodRecord + "\n" + kGoodRecord.substr(0, 40));
  ScopedLogCapture log;
  const TensorDump dump = TensorDump::open(dir.path());
  CHECK(dump.records().size() == 1);
  REQUIRE(log.messages().size() == 1);
  CHECK_THAT(log.messages()[0], Catch::Contains("unfinished last record"));
}

TEST_CASE("an array that disagrees with its record is refused", "[unit]") {
  TempDir dir;
  const std::vector<float> a{1, 2, 3};
  {
    DumpWriter writer(dir / "dump", {});
    writer.write(record("conv1", {3}), a);
  }
  const TensorDump dump = TensorDump::open(dir / "dump");
  const fs::path file = dir / "dump" / *dump.records()[0].file;
  const std::vector<float> other{1, 2};
  fs::remove(file);
  write_npy(file, NamedTensor::from_values<float>("x", {2}, other));
  expect_error([&] { dump.read(dump.records()[0]); }, "the manifest says float32 [3]", {file.string()});
  fs::remove(file);
  CHECK_THROWS_AS(dump.read(dump.records()[0]), parity::Error);
  expect_error([&] { TensorDump::open(dir / "missing"); }, "no such directory", {(dir / "missing").string()});
}
