// Gradient-sign probes (docs/formats/grad-probe.md): the SSE2 sign packing
// against a one-bit-at-a-time reference, a written probe read back, and
// every refusal of a damaged one naming the file and the byte.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>

#include "expect_error.hpp"
#include "parity/importers/grad_probe/grad_probe_reader.hpp"
#include "parity/importers/grad_probe/grad_probe_writer.hpp"
#include "parity/importers/grad_probe/sign_bits.hpp"
#include "random_floats.hpp"
#include "temp_dir.hpp"

using namespace parity::importers;
using parity::test::expect_error;
namespace fs = std::filesystem;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The definition, one element at a time.
std::vector<std::uint64_t> naive_signs(const std::vector<float>& values) {
  std::vector<std::uint64_t> words(static_cast<std::size_t>(sign_words(std::int64_t(values.size()))), 0);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] > 0) words[i / 64] |= std::uint64_t{1} << (i % 64);
  return words;
}

std::vector<std::uint64_t> packed(const std::vector<float>& values) {
  std::vector<std::uint64_t> words(static_cast<std::size_t>(sign_words(std::int64_t(values.size()))),
                                   0xdeadbeefdeadbeefULL);
  pack_signs(values, words);
  return words;
}

GradProbeHeader two_parameters() {
  return lay_out_grad_probe("test", "tiny", {{"conv.weight", {2, 3, 5, 5}}, {"fc.bias", {10}}});
}

// A probe of two_parameters() with `steps`, each parameter's words filled from the step.
void write_probe(const fs::path& dir, const std::vector<std::int64_t>& steps) {
  GradProbeWriter writer(dir, two_parameters());
  for (const std::int64_t step : steps) {
    for (std::size_t p = 0; p < 2; ++p) {
      std::vector<float> values(static_cast<std::size_t>(writer.header().parameters[p].elements));
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = float((i * 7 + step * 3 + p) % 5) - 2;
      pack_signs(values, writer.parameter_words(p));
    }
    writer.write_step(step);
  }
}

}  // namespace

TEST_CASE("signs pack as the one-bit-at-a-time definition, at every length", "[unit]") {
  for (std::size_t count = 0; count <= 200; ++count) {
    std::vector<float> values = random_floats(count, unsigned(count));
    INFO(count << " elements");
    CHECK(packed(values) == naive_signs(values));
  }
  std::vector<float> large = random_floats(100003, 7);
  CHECK(packed(large) == naive_signs(large));
}

TEST_CASE("a zero of either sign and NaN are bit 0; denormals keep their sign; +Inf is 1", "[unit]") {
  const float tiny = std::numeric_limits<float>::denorm_min();
  std::vector<float> values{0.0f, -0.0f, kNaN, -kNaN, kInf, -kInf, tiny, -tiny, 1.0f, -1.0f};
  values.resize(130, 0.5f);  // a full word through the SSE2 path, and a tail
  const std::vector<std::uint64_t> words = packed(values);
  CHECK((words[0] & 0x3FF) == 0b0101010000);  // bits 4 (+Inf), 6 (+denormal) and 8 (1.0)
  CHECK(words == naive_signs(values));
  CHECK(words[2] == 0b11);  // elements 128 and 129; the bits past the end are 0
}

TEST_CASE("a written probe reads back: header, steps and bits", "[unit]") {
  TempDir dir;
  write_probe(dir / "p", {0, 1, 5});
  GradProbeReader reader(dir / "p");
  const GradProbeHeader expected = two_parameters();
  REQUIRE(reader.header().parameters.size() == 2);
  CHECK(reader.header().parameters[0].name == "conv.weight");
  CHECK(reader.header().parameters[0].shape == std::vector<std::int64_t>{2, 3, 5, 5});
  CHECK(reader.header().parameters[0].elements == 150);
  CHECK(reader.header().parameters[1].offset == 16 + 8 * 3);
  CHECK(reader.header().record_bytes == expected.record_bytes);
  CHECK(reader.header().producer == "test");
  CHECK(reader.records() == 3);
  std::vector<std::int64_t> steps;
  while (reader.next()) {
    steps.push_back(reader.step());
    std::vector<float> values(150);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = float((i * 7 + reader.step() * 3) % 5) - 2;
    const std::vector<std::uint64_t> want = naive_signs(values);
    const auto got = reader.parameter_words(0);
    CHECK(std::vector<std::uint64_t>(got.begin(), got.end()) == want);
  }
  CHECK(steps == std::vector<std::int64_t>{0, 1, 5});
}

TEST_CASE("a probe never lands in a directory that holds something", "[unit]") {
  TempDir dir;
  std::ofstream(dir / "x") << "x";
  expect_error([&] { GradProbeWriter(dir.path(), two_parameters()); }, "not empty", {dir.path().string()});
}

TEST_CASE("damaged probes are refused naming the file and the byte", "[unit]") {
  TempDir dir;
  const fs::path probe = dir / "p";
  write_probe(probe, {0, 1, 2});
  const fs::path signs = probe / "signs.bin";
  const std::int64_t record = two_parameters().record_bytes;

  SECTION("a cut file") {
    fs::resize_file(signs, std::uintmax_t(2 * record + 5));
    expect_error([&] { GradProbeReader{probe}; }, "ends inside record 2", signs,
                 "byte " + std::to_string(2 * record));
  }
  SECTION("a record without its magic") {
    std::fstream file(signs, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(record);
    file.write("XXXX", 4);
    file.close();
    GradProbeReader reader(probe);
    CHECK(reader.next());
    expect_error([&] { reader.next(); }, "record 1 does not start with PGSR", signs,
                 "byte " + std::to_string(record));
  }
  SECTION("steps that do not rise") {
    std::fstream file(signs, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(2 * record + 8);
    const std::int64_t step = 1;
    file.write(reinterpret_cast<const char*>(&step), 8);
    file.close();
    GradProbeReader reader(probe);
    CHECK(reader.next());
    CHECK(reader.next());
    expect_error([&] { reader.next(); }, "record 2 is step 1, after step 1", signs,
                 "byte " + std::to_string(2 * record));
  }
  SECTION("a header whose layout is not the one its shapes imply") {
    std::ifstream in(probe / "probe.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    const auto at = text.find("\"offset\":40");
    REQUIRE(at != std::string::npos);
    text.replace(at, 11, "\"offset\":48");
    std::ofstream(probe / "probe.json") << text;
    expect_error([&] { GradProbeReader{probe}; }, "differ from the layout", probe / "probe.json",
                 "fc.bias");
  }
  SECTION("not a probe at all") {
    std::ofstream(probe / "probe.json") << R"({"format": "parity-dump", "version": 1})";
    expect_error([&] { GradProbeReader{probe}; }, "not parity-grad-probe", probe / "probe.json");
  }
  SECTION("no probe.json") {
    fs::remove(probe / "probe.json");
    expect_error([&] { GradProbeReader{probe}; }, "cannot open the probe header",
                 probe / "probe.json");
  }
}
